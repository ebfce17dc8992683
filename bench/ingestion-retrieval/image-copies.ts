/**
 * Image copies of maths problems (issue 16): is the maths read right, is a misreading refused rather
 * than solved, and do copies find the original's solution? The held-out set (sets/maths-problems.ts) is
 * printed in 6 fonts (one handwriting-like) × 4 layouts with true superscripts; each original is ingested
 * (OCR, maths reading with its second pass and refusal) and indexed; then 8 degraded copies of it, its
 * typed text, and a sibling printed in the same layout (other numbers) are ingested and searched, through
 * the service path minus the messaging (ingestion's signature → contract → retrieval on a real
 * PostgreSQL with the HNSW index and the pHash index).
 *
 * Per image: "read right" = the reading's canonical maths equals the typed original's; "refused" =
 * MediaRejected unreadable; "silently wrong" = read, not refused, and other maths.
 *
 * Run offline: npm run build && unshare -rn node dist/bench/ingestion-retrieval/image-copies.js [problems=40] [ocrWorkers=2]
 */
import { LocalHashedEmbedder } from '@openpaw/providers';
import { createDatabase, startPostgresServer } from '@openpaw/testing';
import pg from 'pg';
import {
  computeProblemSignature,
  type IngestionOutcome,
  ingestProblem,
  normaliseText,
  PHASH_VERSION,
  createOcrReader,
  toContractSignature,
} from '../../apps/ingestion/src/public-api.js';
import {
  documentFromIndexCommand,
  ensureEmbeddedVectorTables,
  ensureProblemCatalogTables,
  hybridSearch,
  indexProblem,
  levenshtein,
  MultiIndexHashIndex,
  PersistedVectorIndex,
  PgProblemCatalog,
  PgVectorStore,
  ProviderEmbedderAdapter,
  queryFromSignature,
} from '../../apps/retrieval/src/public-api.js';
import { type MathsProblem, mathsProblemSet } from './sets/maths-problems.js';
import { COPY_DEGRADATIONS, degradeCopy, MATHS_FONTS, MATHS_LAYOUTS, renderMathsProblem } from './support/render-maths.js';

const PROBLEMS = Number(process.argv[2] ?? 40);
const WORKERS = Number(process.argv[3] ?? 2);

const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
type Signature = ReturnType<typeof toContractSignature>;

interface ReadTally {
  right: number;
  refused: number;
  wrong: number;
  errors: number;
  chars: number;
}
const emptyRead = (): ReadTally => ({ right: 0, refused: 0, wrong: 0, errors: 0, chars: 0 });

async function main(): Promise<void> {
  const set = mathsProblemSet(PROBLEMS);
  const server = await startPostgresServer({ fsync: false });
  const pool = new pg.Pool({ connectionString: await createDatabase(server.adminUrl, 'bench_image_copies'), max: 4 });
  pool.on('error', () => undefined);
  const reader = createOcrReader({ reader: 'pp-ocr', workers: WORKERS, timeoutMs: 30_000 });
  const ingestPorts = { reader, fetch: () => Promise.reject(new Error('no URLs here')) };
  try {
    await ensureProblemCatalogTables(pool);
    await ensureEmbeddedVectorTables(pool);
    const embedder = await ProviderEmbedderAdapter.open(new LocalHashedEmbedder());
    const vectors = new PersistedVectorIndex(embedder.dimension, new PgVectorStore(pool));
    const catalog = new PgProblemCatalog(pool);
    const phashIndex = new MultiIndexHashIndex();
    const ports = { catalog, phashIndex, vectors, embedder, phashVersion: PHASH_VERSION };

    const truthOf = (p: MathsProblem): string => computeProblemSignature(p.original).maths?.canonical ?? '';
    const reads = new Map<string, ReadTally>();
    const wrongReads: string[] = [];
    const wrongHits: string[] = [];
    const refusals: string[] = [];
    const refusalKinds = new Map<string, number>();
    const misses: string[] = [];
    const tallyRead = (label: string, outcome: IngestionOutcome, truthText: string, truthMaths: string): Signature | undefined => {
      const t = reads.get(label) ?? emptyRead();
      reads.set(label, t);
      if (outcome.status === 'rejected') {
        t.refused += 1;
        refusals.push(`${label}: ${outcome.detail}`);
        for (const kind of refusalKindsOf(outcome.detail)) refusalKinds.set(kind, (refusalKinds.get(kind) ?? 0) + 1);
        return undefined;
      }
      const norm = normaliseText(truthText);
      t.errors += levenshtein(norm, outcome.signature.normalisedText);
      t.chars += norm.length;
      if (outcome.signature.maths?.canonical === truthMaths) t.right += 1;
      else {
        t.wrong += 1;
        wrongReads.push(`${label}: "${outcome.signature.normalisedText}" read as ${outcome.signature.maths?.canonical ?? 'no maths'} (confidence ${outcome.signature.maths?.confidence.toFixed(2) ?? '-'}), truth ${truthMaths}`);
      }
      return toContractSignature(outcome.signature, outcome.media.kind === 'image' ? outcome.media.ocr.confidence : undefined);
    };
    const pageText = (p: MathsProblem, i: number, text: string): string => {
      const layout = MATHS_LAYOUTS[Math.floor(i / MATHS_FONTS.length) % MATHS_LAYOUTS.length] ?? 'plain';
      return layout === 'worksheet' ? `Problem ${i + 1}. ${text}` : layout === 'numbered' ? `${i + 1}. ${text}` : text;
    };

    const started = Date.now();
    let images = 0;
    // 1. Originals: read, and indexed as the first user's submission.
    const originals = new Map<string, string>();
    const work: Promise<void>[] = [];
    for (const [i, p] of set.entries()) {
      const font = MATHS_FONTS[i % MATHS_FONTS.length] ?? 'DejaVu Sans';
      const layout = MATHS_LAYOUTS[Math.floor(i / MATHS_FONTS.length) % MATHS_LAYOUTS.length] ?? 'plain';
      work.push(
        (async () => {
          const png = await renderMathsProblem({ text: p.original, font, layout, number: i + 1 });
          images += 1;
          const outcome = await ingestProblem({ kind: 'image', bytes: png }, ingestPorts);
          const signature = tallyRead(`original/${font}`, outcome, pageText(p, i, p.original), truthOf(p));
          if (signature !== undefined) {
            const assetVersionId = uuid(i + 1);
            await indexProblem(documentFromIndexCommand({ runId: uuid(0), problemId: uuid(10_000 + i), assetVersionId, signature }), ports);
            originals.set(p.id, assetVersionId);
          }
        })(),
      );
      if (work.length >= WORKERS) await Promise.all(work.splice(0));
    }
    await Promise.all(work.splice(0));

    // 2. Copies, typed text and siblings, searched against what was indexed.
    const search = new Map<string, { hit: number; miss: number; wrong: number; refused: number }>();
    const tallySearch = async (label: string, signature: Signature | undefined, expected: string | undefined, forbidden?: string): Promise<void> => {
      const t = search.get(label) ?? { hit: 0, miss: 0, wrong: 0, refused: 0 };
      search.set(label, t);
      if (signature === undefined) {
        t.refused += 1;
        return;
      }
      const result = await hybridSearch(queryFromSignature(signature), { threshold: 0.85 }, ports);
      const got = result.outcome === 'hit' ? result.candidate?.assetVersionId : undefined;
      if (got === undefined) {
        t.miss += 1;
        // Why a copy missed: what the maths stage said (the tier that should have found it).
        const why = result.trace.filter((e) => e.stage === 'maths_signature').map((e) => e.reason);
        if (expected !== undefined) misses.push(`${label}: "${signature.normalizedText}" ${signature.maths?.canonical ?? 'no maths'}: ${why.join('; ')}`);
      }
      else if (expected !== undefined ? got === expected : got !== forbidden) t.hit += 1;
      else {
        t.wrong += 1;
        wrongHits.push(`${label}: "${signature.normalizedText}" hit ${got} at ${result.stage ?? '?'} ${result.confidence.toFixed(3)} (expected ${expected ?? `anything but ${forbidden ?? '?'}`})`);
      }
    };
    const jobs: (() => Promise<void>)[] = [];
    for (const [i, p] of set.entries()) {
      const font = MATHS_FONTS[i % MATHS_FONTS.length] ?? 'DejaVu Sans';
      const layout = MATHS_LAYOUTS[Math.floor(i / MATHS_FONTS.length) % MATHS_LAYOUTS.length] ?? 'plain';
      const expected = originals.get(p.id);
      jobs.push(async () => {
        const png = await renderMathsProblem({ text: p.original, font, layout, number: i + 1 });
        for (const degradation of COPY_DEGRADATIONS) {
          images += 1;
          const outcome = await ingestProblem({ kind: 'image', bytes: await degradeCopy(png, degradation, i) }, ingestPorts);
          // Copies of a handwriting-like original are tallied apart: the printed-maths targets are about print.
          const label = font === 'handwriting-like' ? `handwriting-like copy/${degradation}` : `copy/${degradation}`;
          const signature = tallyRead(label, outcome, pageText(p, i, p.original), truthOf(p));
          if (expected !== undefined) await tallySearch(label, signature, expected);
        }
        const sibling = await renderMathsProblem({ text: p.sibling, font, layout, number: i + 1 });
        images += 1;
        const siblingOutcome = await ingestProblem({ kind: 'image', bytes: sibling }, ingestPorts);
        const siblingTruth = computeProblemSignature(p.sibling).maths?.canonical ?? '';
        const siblingSignature = tallyRead(font === 'handwriting-like' ? 'handwriting-like sibling' : 'sibling (other numbers)', siblingOutcome, pageText(p, i, p.sibling), siblingTruth);
        await tallySearch('sibling image (must not hit the original)', siblingSignature, undefined, expected);
        if (expected !== undefined) await tallySearch('typed text of the image', toContractSignature(computeProblemSignature(p.original)), expected);
      });
    }
    await Promise.all(
      Array.from({ length: WORKERS }, async () => {
        for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) await job();
      }),
    );
    const seconds = (Date.now() - started) / 1000;

    console.log(`${images} images, ${seconds.toFixed(0)} s (${((seconds * 1000) / images).toFixed(0)} ms/image wall, ${WORKERS} OCR workers)\n`);
    console.log(`${'reading'.padEnd(34)}${'right'.padStart(7)}${'refused'.padStart(9)}${'WRONG'.padStart(7)}${'char acc'.padStart(10)}`);
    const all = emptyRead();
    const printed = emptyRead();
    for (const [label, t] of [...reads].sort()) {
      for (const sum of label.includes('handwriting') ? [all] : [all, printed]) {
        sum.right += t.right;
        sum.refused += t.refused;
        sum.wrong += t.wrong;
        sum.errors += t.errors;
        sum.chars += t.chars;
      }
      console.log(`${label.padEnd(34)}${String(t.right).padStart(7)}${String(t.refused).padStart(9)}${String(t.wrong).padStart(7)}${((1 - t.errors / Math.max(1, t.chars)) * 100).toFixed(2).padStart(9)}%`);
    }
    const line = (label: string, t: ReadTally): void => {
      const n = t.right + t.refused + t.wrong;
      console.log(`${label.padEnd(34)}${String(t.right).padStart(7)}${String(t.refused).padStart(9)}${String(t.wrong).padStart(7)}${((1 - t.errors / Math.max(1, t.chars)) * 100).toFixed(2).padStart(9)}%   maths right ${(t.right / n).toFixed(3)} of ${n}`);
    };
    line('ALL images', all);
    line('printed (no handwriting-like)', printed);
    console.log(`\n${'search'.padEnd(44)}${'hit'.padStart(6)}${'miss'.padStart(6)}${'WRONG'.padStart(7)}${'refused'.padStart(9)}`);
    for (const [label, t] of search) console.log(`${label.padEnd(44)}${String(t.hit).padStart(6)}${String(t.miss).padStart(6)}${String(t.wrong).padStart(7)}${String(t.refused).padStart(9)}`);
    const copies = [...search].filter(([k]) => k.includes('copy/')).reduce((s, [, t]) => ({ hit: s.hit + t.hit, n: s.n + t.hit + t.miss + t.wrong + t.refused, wrong: s.wrong + t.wrong }), { hit: 0, n: 0, wrong: 0 });
    console.log('\nwhy images were refused (an image counts once per kind of doubt it had):');
    for (const [kind, n] of [...refusalKinds].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(5)}  ${kind}`);
    if (process.env['BENCH_SHOW_REFUSALS'] === '1') for (const r of refusals) console.log(`  refused: ${r}`);
    for (const w of wrongReads) console.log(`  read wrong: ${w}`);
    for (const w of wrongHits) console.log(`  WRONG HIT: ${w}`);
    for (const m of misses) console.log(`  missed: ${m}`);
    const printedCopies = [...search].filter(([k]) => k.startsWith('copy/')).reduce((s, [, t]) => ({ hit: s.hit + t.hit, n: s.n + t.hit + t.miss + t.wrong + t.refused, wrong: s.wrong + t.wrong, refused: s.refused + t.refused }), { hit: 0, n: 0, wrong: 0, refused: 0 });
    console.log(`printed copies: recall ${(printedCopies.hit / Math.max(1, printedCopies.n)).toFixed(3)} (${printedCopies.hit}/${printedCopies.n}; ${printedCopies.refused} refused at ingestion), wrong hits ${printedCopies.wrong}`);
    console.log(`copies: recall ${(copies.hit / Math.max(1, copies.n)).toFixed(3)} (${copies.hit}/${copies.n}), wrong hits ${copies.wrong}; originals indexed ${originals.size}/${set.length}`);
  } finally {
    await reader.close();
    await pool.end();
    await server.dispose();
  }
}

/**
 * The kinds of doubt behind a refusal: its parts with the quoted text taken out ("\"74\": raised digits
 * read as plain digits" → "raised digits read as plain digits"), so refusals can be counted by cause.
 */
function refusalKindsOf(detail: string): Set<string> {
  const inner = /\((.*)\)[^)]*$/.exec(detail)?.[1] ?? detail;
  const kinds = new Set<string>();
  for (const part of inner.split('; ')) {
    const kind = part
      .replace(/"[^"]*"\s*\d?\.?\d*/g, '')
      .replace(/^[:\s]+/, '')
      .replace(/:.*$/, '')
      .replace(/operator \S+/, 'operator')
      .trim();
    kinds.add(kind === '' ? part : kind);
  }
  return kinds;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
