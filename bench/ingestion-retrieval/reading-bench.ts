/**
 * The pinned reading bench (issue 25): Chromium + KaTeX renders of printed problems (seeded), in the
 * issue's eight photo-like copies plus quarter and half turns, read through ingestion's image path.
 *
 * Scored per set with a frozen comparison, both sides normalised by `normaliseText` and signed by
 * `extractMathsSignature` of this checkout:
 * - read fully right: accepted, the same maths signature as the typed truth, and the same digits and
 *   operators in the same order;
 * - wrong: accepted with a different maths signature (or none where the truth has one). Must be 0;
 * - refused: ingestion answered `rejected` (its reason is listed with BENCH_SHOW_REFUSALS=1);
 * - other: accepted, maths right, but a digit or operator spelled differently (e.g. × read as x);
 * - character accuracy: 1 − Σ Levenshtein(truth, read) / Σ |truth| over accepted readings, normalised.
 *
 * Usage: npm run build && node dist/bench/ingestion-retrieval/reading-bench.js
 *          [--seed 2511] [--originals 200] [--copies-of 200] [--concurrency 2] [--reader pp-ocr|tesseract] [--fail-on-wrong]
 *          [--ingestion <path to an ingestion public-api.js, e.g. /work/wt/base/dist/apps/ingestion/src/public-api.js>] [--floor-of 40]
 * --ingestion: another build's ingestion with its own PP-OCR reader (--reader pp-ocr, when it has one) or its tesseract pool.
 * --floor-of N: after the run, the reader alone (decode, detect, recognise; no ingestion, no judging) reads
 * the first N images at the same concurrency: the inference floor the ingest latency stands on (own build only).
 * --fail-on-wrong exits 1 when any reading is wrong (the bench smoke runs it so).
 * The development seed is 2511; the held-out seed reported at the end is 7919.
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as ownIngestion from '../../apps/ingestion/src/public-api.js';
import { levenshtein } from '../../apps/retrieval/src/public-api.js';
import { DISTORTIONS, type Distortion, distort, generateKatexProblems, type RenderedKatexProblem, renderKatexProblems } from './support/katex-problems.js';
import { formatLatency, summarise } from './support/stats.js';

interface Args {
  readonly seed: number;
  readonly originals: number;
  readonly copiesOf: number;
  readonly concurrency: number;
  readonly reader: string;
  readonly ingestion?: string;
  readonly failOnWrong: boolean;
  readonly floorOf: number;
}

function parseArgs(argv: readonly string[]): Args {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const originals = Number(value('originals') ?? 200);
  const ingestion = value('ingestion');
  return {
    seed: Number(value('seed') ?? 2511),
    originals,
    copiesOf: Number(value('copies-of') ?? originals),
    concurrency: Number(value('concurrency') ?? 2),
    reader: value('reader') ?? 'pp-ocr',
    failOnWrong: argv.includes('--fail-on-wrong'),
    floorOf: Number(value('floor-of') ?? 40),
    ...(ingestion === undefined ? {} : { ingestion }),
  };
}

interface Case {
  readonly problem: RenderedKatexProblem;
  readonly set: 'original' | Distortion;
  readonly image: Buffer;
}

interface Scored {
  readonly set: string;
  readonly verdict: 'right' | 'wrong' | 'refused' | 'other';
  readonly truth: string;
  readonly read?: string;
  readonly reason?: string;
  readonly distance: number;
  readonly length: number;
  readonly ms: number;
  readonly family: string;
}

type Outcome = { status: 'normalised'; signature: { normalisedText: string } } | { status: 'rejected'; reason: string; detail: string };
type Ingest = (input: { kind: 'image'; bytes: Uint8Array }) => Promise<Outcome>;

/** Builds the ingestion call under test: this checkout's (its default reader), or another build's with tesseract. */
async function ingestionUnderTest(args: Args): Promise<{ ingest: Ingest; close: () => Promise<void>; readAlone?: (image: Uint8Array) => Promise<unknown> }> {
  const fetch = (): Promise<never> => Promise.reject(new Error('no URLs in this bench'));
  if (args.ingestion !== undefined) {
    // Another build (a baseline's dist): its own ports; its PP-OCR reader where it has one, else its tesseract pool.
    const other = (await import(pathToFileURL(resolve(args.ingestion)).href)) as {
      ingestProblem: (input: unknown, ports: unknown) => Promise<Outcome>;
      createOcrReader?: typeof ownIngestion.createOcrReader;
      TesseractOcrPool?: new (options: { size: number }) => { shutdown(): Promise<void> };
    };
    if (other.createOcrReader !== undefined && args.reader === 'pp-ocr') {
      const reader = other.createOcrReader({ reader: 'pp-ocr', workers: args.concurrency, timeoutMs: 30_000 });
      return { ingest: (input) => other.ingestProblem(input, { reader, fetch }), close: () => reader.close() };
    }
    if (other.TesseractOcrPool === undefined) throw new Error(`${args.ingestion} exports neither createOcrReader nor TesseractOcrPool`);
    const ocr = new other.TesseractOcrPool({ size: args.concurrency });
    return { ingest: (input) => other.ingestProblem(input, { ocr, fetch }), close: () => ocr.shutdown() };
  }
  const reader = ownIngestion.createOcrReader({ reader: 'pp-ocr', workers: args.concurrency, timeoutMs: 30_000 });
  return { ingest: (input) => ownIngestion.ingestProblem(input, { reader, fetch }), close: () => reader.close(), readAlone: (image) => reader.read(image).catch(() => undefined) };
}

const MATHS_CHARS = /[^0-9+\-*/=<>^]/g;

function score(c: Case, outcome: Outcome, ms: number): Scored {
  const truth = ownIngestion.normaliseText(c.problem.truth);
  const base = { set: c.set, truth, ms, family: c.problem.family, length: truth.length };
  if (outcome.status !== 'normalised') return { ...base, verdict: 'refused', reason: `${outcome.reason}: ${outcome.detail}`, distance: 0, length: 0 };
  const read = outcome.signature.normalisedText;
  const truthHash = ownIngestion.extractMathsSignature(truth).signature?.hash;
  const readHash = ownIngestion.extractMathsSignature(read).signature?.hash;
  const sameMaths = truthHash !== undefined && truthHash === readHash;
  const sameOperators = truth.replace(MATHS_CHARS, '') === read.replace(MATHS_CHARS, '');
  const verdict = !sameMaths ? 'wrong' : sameOperators ? 'right' : 'other';
  return { ...base, verdict, read, distance: levenshtein(truth, read) };
}

/** Runs `each` over the cases, `concurrency` at a time, with each one's wall time. */
async function timed<T>(cases: readonly Case[], concurrency: number, each: (c: Case) => Promise<T>): Promise<{ c: Case; result: T; ms: number }[]> {
  const queue = [...cases];
  const done: { c: Case; result: T; ms: number }[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
        const started = performance.now();
        const result = await each(c);
        done.push({ c, result, ms: performance.now() - started });
      }
    }),
  );
  return done;
}

async function run(cases: readonly Case[], ingest: Ingest, concurrency: number): Promise<Scored[]> {
  const done = await timed(cases, concurrency, (c) => ingest({ kind: 'image', bytes: c.image }));
  return done.map(({ c, result, ms }) => score(c, result, ms));
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

function report(label: string, scored: readonly Scored[]): void {
  const right = scored.filter((s) => s.verdict === 'right').length;
  const wrong = scored.filter((s) => s.verdict === 'wrong').length;
  const refused = scored.filter((s) => s.verdict === 'refused').length;
  const other = scored.filter((s) => s.verdict === 'other').length;
  const accepted = scored.filter((s) => s.verdict !== 'refused');
  const accuracy = 1 - accepted.reduce((sum, s) => sum + s.distance, 0) / Math.max(1, accepted.reduce((sum, s) => sum + s.length, 0));
  const pct = (n: number): string => `${((100 * n) / Math.max(1, scored.length)).toFixed(1)}%`;
  console.log(`${label.padEnd(12)} n=${String(scored.length).padStart(4)}  fully right ${right} (${pct(right)})  refused ${refused} (${pct(refused)})  wrong ${wrong}  other ${other}  char accuracy ${(100 * accuracy).toFixed(2)}%`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  console.log(`reading bench: seed ${args.seed}, ${args.originals} originals, copies of ${args.copiesOf}, concurrency ${args.concurrency}, reader ${args.ingestion === undefined ? args.reader : `${args.reader} from ${args.ingestion}`}; ${cpus().length} cores`);
  const started = performance.now();
  const problems = await renderKatexProblems(generateKatexProblems(args.seed, args.originals));
  const untyped = problems.filter((p) => ownIngestion.extractMathsSignature(ownIngestion.normaliseText(p.truth)).signature === undefined);
  if (untyped.length > 0) throw new Error(`truths without a maths signature (the comparison cannot score them): ${untyped.map((p) => p.truth).join(' | ')}`);
  const cases: Case[] = problems.map((problem) => ({ problem, set: 'original', image: problem.png }));
  for (const problem of problems.slice(0, args.copiesOf)) {
    for (const set of DISTORTIONS) cases.push({ problem, set, image: await distort(problem.png, set, args.seed + problem.id) });
  }
  console.log(`rendered ${problems.length} originals and ${cases.length - problems.length} copies in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const { ingest, close, readAlone } = await ingestionUnderTest(args);
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  try {
    await ingest({ kind: 'image', bytes: problems[0]!.png }); // warm-up: model load, first inference
    console.log(`load before: ${load()}`);
    const scored = await run(cases, ingest, args.concurrency);
    console.log(`load after: ${load()}`);
    report('original', scored.filter((s) => s.set === 'original'));
    report('all copies', scored.filter((s) => s.set !== 'original'));
    for (const set of DISTORTIONS) report(set, scored.filter((s) => s.set === set));
    const families = [...new Set(scored.map((s) => s.family))];
    for (const family of families) report(`~${family}`, scored.filter((s) => s.family === family));
    console.log(formatLatency(`ingest an image, c=${args.concurrency}`, summarise(scored.map((s) => s.ms))));
    if (readAlone !== undefined && args.floorOf > 0) {
      const floor = await timed(cases.slice(0, args.floorOf), args.concurrency, (c) => readAlone(c.image));
      console.log(formatLatency(`reader alone, c=${args.concurrency}`, summarise(floor.map((f) => f.ms))), ` load ${load()}`);
    }
    console.log(`peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
    for (const s of scored.filter((x) => x.verdict === 'wrong')) console.log(`WRONG [${s.set}] truth "${s.truth}" read "${s.read ?? ''}"`);
    if (process.env['BENCH_SHOW_OTHER'] === '1') for (const s of scored.filter((x) => x.verdict === 'other')) console.log(`other [${s.set}] truth "${s.truth}" read "${s.read ?? ''}"`);
    if (process.env['BENCH_SHOW_REFUSALS'] === '1') for (const s of scored.filter((x) => x.verdict === 'refused')) console.log(`refused [${s.set}] "${s.truth}": ${s.reason ?? ''}`);
    const wrong = scored.filter((s) => s.verdict === 'wrong').length;
    if (args.failOnWrong && wrong > 0) {
      console.error(`reading bench: ${wrong} wrong reading${wrong === 1 ? '' : 's'} (a wrong reading is worse than a refusal; must be 0)`);
      process.exitCode = 1;
    }
  } finally {
    clearInterval(sampler);
    await close();
  }
}

await main();
