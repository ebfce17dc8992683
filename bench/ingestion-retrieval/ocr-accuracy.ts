/**
 * OCR character accuracy on rendered printed problems, through the ingestion pipeline's own OCR path
 * (normalise → deskew → the OCR port's local default, PP-OCRv4 on ONNX Runtime, offline).
 *
 * accuracy = 1 − Σ Levenshtein(truth, ocr) / Σ |truth|, with whitespace runs collapsed on both sides.
 * "raw" compares the OCR text with the exact printed characters (× − ² ÷ ° included); "normalised"
 * compares both after the ingestion text normalisation, which is what retrieval actually keys on.
 *
 * Run offline to prove no download happens: npm run build && unshare -rn node dist/bench/ingestion-retrieval/ocr-accuracy.js [problemsPerLayoutFont=5] [workers=2]
 */
import { createOcrReader, ingestProblem, normaliseText } from '../../apps/ingestion/src/public-api.js';
import { levenshtein } from '../../apps/retrieval/src/public-api.js';
import { FAMILY_NAMES, generateProblem } from './support/problem-corpus.js';
import { seededRandom } from './support/random.js';
import { FONTS, LAYOUTS, renderProblem, transformCopy, type TransformName } from './support/render.js';

const perCell = Number(process.argv[2] ?? 5);
const workers = Number(process.argv[3] ?? 2);

interface Case {
  readonly font: string;
  readonly variant: 'original' | TransformName;
  readonly truth: string;
  readonly png: Buffer;
  ocr?: string;
  confidence?: number;
  /** Why ingestion refused to read it (an unreadable maths reading), instead of a text. */
  refused?: string;
  /** What each whole-page OCR pass read (its segmentation and text), kept to show a refusal's readings. */
  pages?: string[];
}

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();
/** BENCH_SHOW_REFUSALS=1: every refused image with its full reason, its printed text and what each page pass read. */
const showRefusals = process.env['BENCH_SHOW_REFUSALS'] === '1';

async function main(): Promise<void> {
  const random = seededRandom(4242);
  const cases: Case[] = [];
  let n = 0;
  for (const layout of LAYOUTS) {
    for (const font of FONTS) {
      for (let k = 0; k < perCell; k += 1) {
        n += 1;
        const problem = generateProblem(random, FAMILY_NAMES[n % FAMILY_NAMES.length] ?? 'linear');
        const rendered = await renderProblem({ text: problem.text, font, layout, number: n });
        const truth = rendered.lines.join('\n');
        cases.push({ font, variant: 'original', truth, png: rendered.png });
        for (const variant of ['jpeg40', 'half', 'photo'] as const) cases.push({ font, variant, truth, png: await transformCopy(rendered.png, variant, n) });
      }
    }
  }
  const reader = createOcrReader({ reader: 'pp-ocr', workers, timeoutMs: 30_000 });
  const started = Date.now();
  try {
    const queue = [...cases];
    const ports = { reader, fetch: () => Promise.reject(new Error('no URLs here')) };
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
          const pages: string[] = [];
          const outcome = await ingestProblem({ kind: 'image', bytes: c.png }, ports);
          if (outcome.status !== 'normalised') {
            // Ingestion refuses a reading it doubts (rather than solving it wrong): not scored as text.
            c.refused = outcome.status === 'rejected' ? `${outcome.reason}: ${outcome.detail}` : JSON.stringify(outcome);
            c.pages = pages;
            continue;
          }
          if (outcome.media.kind !== 'image') throw new Error(`an image came back as ${outcome.media.kind}`);
          c.ocr = outcome.media.ocr.text;
          c.confidence = outcome.media.ocr.confidence;
        }
      }),
    );
  } finally {
    await reader.close();
  }
  const perImageMs = (Date.now() - started) / cases.length;

  const score = (subset: readonly Case[], normalise: boolean): { accuracy: number; chars: number } => {
    let errors = 0;
    let chars = 0;
    for (const c of subset) {
      const truth = normalise ? normaliseText(c.truth) : collapse(c.truth);
      const read = normalise ? normaliseText(c.ocr ?? '') : collapse(c.ocr ?? '');
      errors += levenshtein(truth, read);
      chars += truth.length;
    }
    return { accuracy: 1 - errors / chars, chars };
  };
  console.log(`OCR: ${cases.length} images, ${perImageMs.toFixed(0)} ms/image wall with ${workers} workers (the OCR port's default reader, PP-OCRv4)`);
  console.log(`${'subset'.padEnd(28)}${'chars'.padStart(8)}${'raw'.padStart(10)}${'normalised'.padStart(12)}${'mean conf'.padStart(11)}${'refused'.padStart(10)}`);
  const row = (label: string, all: readonly Case[]): void => {
    const subset = all.filter((c) => c.refused === undefined);
    const raw = score(subset, false);
    const norm = score(subset, true);
    const conf = subset.reduce((s, c) => s + (c.confidence ?? 0), 0) / subset.length;
    console.log(
      `${label.padEnd(28)}${String(raw.chars).padStart(8)}${(raw.accuracy * 100).toFixed(2).padStart(9)}%${(norm.accuracy * 100).toFixed(2).padStart(11)}%${conf.toFixed(1).padStart(11)}` +
        `${`${all.length - subset.length}/${all.length}`.padStart(10)}`,
    );
  };
  const originals = cases.filter((c) => c.variant === 'original');
  for (const c of cases.filter((r) => r.refused !== undefined).slice(0, showRefusals ? undefined : 5)) {
    console.log(`refused (${c.variant}, ${c.font}): ${showRefusals ? (c.refused ?? '') : (c.refused ?? '').slice(0, 160)}`);
    if (showRefusals) console.log(`  printed: ${collapse(c.truth)}\n${(c.pages ?? []).map((p) => `  read ${p}`).join('\n')}`);
  }
  row('originals (all fonts)', originals);
  for (const font of FONTS) row(`  ${font}`, originals.filter((c) => c.font === font));
  for (const variant of ['jpeg40', 'half', 'photo'] as const) row(`copies: ${variant}`, cases.filter((c) => c.variant === variant));

  // The commonest confusions, to say what the remaining errors are.
  const confusions = new Map<string, number>();
  for (const c of originals.filter((r) => r.refused === undefined)) {
    const truth = collapse(c.truth).split(' ');
    const read = collapse(c.ocr ?? '').split(' ');
    if (truth.length !== read.length) continue;
    truth.forEach((word, i) => {
      const got = read[i] ?? '';
      if (word !== got) confusions.set(`${word} → ${got}`, (confusions.get(`${word} → ${got}`) ?? 0) + 1);
    });
  }
  const top = [...confusions].sort((a, b) => b[1] - a[1]).slice(0, 8);
  console.log(`\nmost frequent word-level misreads in originals: ${top.map(([k, v]) => `${k} (${v})`).join('; ')}`);

  // Read fully right: the reading, normalised as retrieval keys on it, is the printed text normalised, character for character.
  const differs = (c: Case): boolean => normaliseText(c.ocr ?? '') !== normaliseText(c.truth);
  const read = cases.filter((c) => c.refused === undefined);
  const wrongly = read.filter(differs);
  console.log(`read fully right (normalised text equal to the printed text's): ${read.length - wrongly.length} of ${cases.length}; refused ${cases.length - read.length}; read with a difference ${wrongly.length}`);
  for (const c of showRefusals ? wrongly : []) console.log(`  differs (${c.variant}, ${c.font}): "${normaliseText(c.truth)}" read "${normaliseText(c.ocr ?? '')}"`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
