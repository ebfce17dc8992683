/**
 * Hybrid search latency over 100k indexed problems with the local-default stack: PostgreSQL catalogue
 * (exact keys + full-text keyword search, a real server started from local binaries), the in-memory
 * multi-index pHash index, and the embedded vector index — HNSW (usearch) as the service runs it since
 * issue 16, or the exact cosine scan it replaced with `exact` as the third argument — over 256-d vectors
 * from the deterministic hashed n-gram embedder that stands in for the providers' local embedder.
 *
 * Query classes (sequential, one at a time, so the figures are latencies, not throughput):
 * - exact text: a stored problem's normalised text (stops at tier exact_text);
 * - image near-duplicate: a stored problem's pHash 3 bits off with one OCR-like typo (tier phash);
 * - paraphrase: a stored problem re-worded (runs vector, often hybrid);
 * - unseen: a new problem of a known template with new numbers (every tier runs: the worst case).
 *
 * Run: npm run build && node dist/bench/ingestion-retrieval/hybrid-search.js [documents=100000] [queriesPerClass=250] [hnsw|exact]
 */
import { createHash } from 'node:crypto';
import { createDatabase, startPostgresServer } from '@openpaw/testing';
import pg from 'pg';
import { normaliseText } from '../../apps/ingestion/src/public-api.js';
import {
  DEFAULT_HNSW_SETTINGS,
  EmbeddedVectorIndex,
  ensureProblemCatalogTables,
  HashedNgramEmbedder,
  HnswVectorIndex,
  hybridSearch,
  type HybridSearchPorts,
  MultiIndexHashIndex,
  PgProblemCatalog,
  phashHexToSigned,
  type RetrievalQuery,
  type SearchStage,
} from '../../apps/retrieval/src/public-api.js';
import { generateAnyProblem } from './support/problem-corpus.js';
import { pick, randomInt, seededRandom } from './support/random.js';
import { formatLatency, summarise } from './support/stats.js';

const DOCUMENTS = Number(process.argv[2] ?? 100_000);
const PER_CLASS = Number(process.argv[3] ?? 250);
const VECTORS = process.argv[4] === 'exact' ? 'exact' : 'hnsw';
const VERSION = 'dct64-median-dc/v1+crop-deskew-v1';
const DIMENSION = 256;

const CONTEXTS = [
  'Homework set',
  'Exam practice',
  'Warm-up exercise',
  'Revision sheet',
  'Challenge question',
  'Quiz item',
  'Chapter review',
  'Textbook exercise',
];
const TAILS = [
  'Round your answer to two decimal places.',
  'Explain your reasoning.',
  'Give the answer in simplest form.',
  'Show all of your working.',
  'Check your answer.',
  'State the units.',
  '',
];
const PARAPHRASES: readonly [RegExp, string][] = [
  [/\bfind\b/, 'determine'],
  [/\bcompute\b/, 'work out'],
  [/\bwhat is\b/, 'find'],
  [/\bcalculate\b/, 'compute'],
  [/\bsolve\b/, 'work out'],
  [/\bevaluate\b/, 'calculate'],
  [/\bhow many\b/, 'what number of'],
];

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

function randomPhash(random: () => number): string {
  return Array.from({ length: 16 }, () => Math.floor(random() * 16).toString(16)).join('');
}

function flipBits(hex: string, bits: number): string {
  let value = BigInt(`0x${hex}`);
  for (let b = 0; b < bits; b += 1) value ^= 1n << BigInt(b * 7);
  return value.toString(16).padStart(16, '0');
}

interface Doc {
  readonly assetVersionId: string;
  readonly text: string;
  readonly phash: string;
}

async function main(): Promise<void> {
  const random = seededRandom(77);
  console.log(`starting PostgreSQL (local binaries) ...`);
  const server = await startPostgresServer({ fsync: true });
  const pool = new pg.Pool({ connectionString: await createDatabase(server.adminUrl, 'bench_hybrid'), max: 4 });
  // The server is stopped right after the pool; an idle client may hear about it before it has closed.
  pool.on('error', () => undefined);
  try {
    await ensureProblemCatalogTables(pool);
    const docs: Doc[] = [];
    for (let i = 0; i < DOCUMENTS; i += 1) {
      const raw = `${pick(random, CONTEXTS)} ${randomInt(random, 1, 40)}. ${generateAnyProblem(random).text} ${pick(random, TAILS)}`;
      docs.push({ assetVersionId: `av-${i}`, text: normaliseText(raw), phash: randomPhash(random) });
    }

    // Bulk load straight into the catalogue table (one upsert per row would only measure the loader).
    const loadStarted = Date.now();
    for (let from = 0; from < docs.length; from += 5000) {
      const batch = docs.slice(from, from + 5000);
      await pool.query(
        `INSERT INTO retrieval.indexed_problems
           (asset_version_id, normalised_text, text_sha256, image_sha256, phash, phash_version, quality, text_dominant)
         SELECT a, t, ts, i, p::bigint, $6, 100, true FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(a, t, ts, i, p)`,
        [
          batch.map((d) => d.assetVersionId),
          batch.map((d) => d.text),
          batch.map((d) => sha(d.text)),
          batch.map((d) => sha(`pixels ${d.assetVersionId}`)),
          batch.map((d) => phashHexToSigned(d.phash)),
          VERSION,
        ],
      );
    }
    await pool.query('ANALYZE retrieval.indexed_problems');
    console.log(`catalogue: ${docs.length} rows loaded in ${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);

    const catalog = new PgProblemCatalog(pool);
    const phashIndex = new MultiIndexHashIndex({ initialCapacity: DOCUMENTS + 16 });
    const rebuildStarted = Date.now();
    await phashIndex.bulkLoadAsync(catalog.phashEntries(VERSION));
    console.log(`pHash index rebuilt from PostgreSQL: ${phashIndex.size} hashes in ${Date.now() - rebuildStarted} ms`);

    const embedder = new HashedNgramEmbedder(DIMENSION);
    const vectors = VECTORS === 'exact' ? new EmbeddedVectorIndex(DIMENSION, undefined, DOCUMENTS) : new HnswVectorIndex(DIMENSION, { ...DEFAULT_HNSW_SETTINGS, loadThreads: 2 });
    const embedStarted = Date.now();
    if (vectors instanceof HnswVectorIndex) {
      for (let from = 0; from < docs.length; from += 10_000) {
        vectors.bulkLoad(docs.slice(from, from + 10_000).map((doc) => ({ id: doc.assetVersionId, vector: embedder.embedOne(doc.text), payload: { asset_version_id: doc.assetVersionId } })));
      }
    } else {
      for (const doc of docs) await vectors.upsert(doc.assetVersionId, embedder.embedOne(doc.text), { asset_version_id: doc.assetVersionId });
    }
    console.log(`vectors (${VECTORS}): ${vectors.size} × ${DIMENSION} embedded and indexed in ${((Date.now() - embedStarted) / 1000).toFixed(1)} s`);

    const ports: HybridSearchPorts = { catalog, phashIndex, vectors, embedder };
    type Probe = RetrievalQuery & { readonly expected?: string };
    const classes: Record<string, Probe[]> = { 'exact text': [], 'image near-duplicate': [], paraphrase: [], unseen: [] };
    for (let q = 0; q < PER_CLASS; q += 1) {
      const doc = docs[Math.floor(random() * docs.length)];
      if (doc === undefined) continue;
      classes['exact text']?.push({ normalisedText: doc.text, textSha256: sha(doc.text), expected: doc.assetVersionId });
      const typo = doc.text.replace(/e/, 'c');
      classes['image near-duplicate']?.push({
        normalisedText: typo,
        textSha256: sha(typo),
        imageSha256: sha(`new upload ${q}`),
        phash: flipBits(doc.phash, 3),
        phashVersion: VERSION,
        quality: 100,
        textDominant: true,
        expected: doc.assetVersionId,
      });
      let reworded = doc.text;
      for (const [pattern, replacement] of PARAPHRASES) reworded = reworded.replace(pattern, replacement);
      reworded = reworded.replace(/[.?]$/, '').replace(/^(\S+ \S+ \d+)\. /, '$1: ');
      classes.paraphrase?.push({ normalisedText: reworded, textSha256: sha(reworded), expected: doc.assetVersionId });
      const unseen = normaliseText(`${pick(random, CONTEXTS)} ${randomInt(random, 41, 99)}. ${generateAnyProblem(random).text}`);
      classes.unseen?.push({ normalisedText: unseen, textSha256: sha(unseen) });
    }

    const policy = { threshold: 0.85 };
    // Warm-up: JIT, PostgreSQL buffers and plan caches.
    for (const query of (classes.unseen ?? []).slice(0, 30)) await hybridSearch(query, policy, ports);

    const all: number[] = [];
    for (const [name, queries] of Object.entries(classes)) {
      const times: number[] = [];
      const stages = new Map<string, number>();
      for (const query of queries) {
        const start = process.hrtime.bigint();
        const result = await hybridSearch(query, policy, ports);
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        times.push(ms);
        all.push(ms);
        const verdict = query.expected === undefined || result.candidate?.assetVersionId === query.expected ? '' : ' (wrong)';
        const label = `${result.outcome}${result.outcome === 'hit' ? `@${result.stage as SearchStage}${verdict}` : ''}`;
        stages.set(label, (stages.get(label) ?? 0) + 1);
      }
      console.log(formatLatency(name, summarise(times)));
      console.log(`  outcomes: ${[...stages].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    }
    console.log(formatLatency('all queries', summarise(all)));

    // Where the time of the worst-case (unseen) query goes.
    const parts = { embed: [] as number[], vector: [] as number[], keyword: [] as number[], keywordOpen: [] as number[], exactKeys: [] as number[], gate: [] as number[] };
    const timed = async <T>(bucket: number[], fn: () => Promise<T>): Promise<T> => {
      const start = process.hrtime.bigint();
      const value = await fn();
      bucket.push(Number(process.hrtime.bigint() - start) / 1e6);
      return value;
    };
    for (const [i, query] of (classes.unseen ?? []).entries()) {
      const [vector] = await timed(parts.embed, () => embedder.embed([query.normalisedText]));
      const hits = await timed(parts.vector, () => vectors.search(vector ?? new Float32Array(DIMENSION), 20));
      const ids = hits.map((h) => h.payload.asset_version_id);
      await timed(parts.keyword, () => catalog.keywordSearch(query.normalisedText, 20, ids));
      await timed(parts.gate, () => catalog.getByAssetVersionIds(ids));
      // The unrestricted any-term query, for comparison only (a sample: each takes most of a second).
      if (i < 40) await timed(parts.keywordOpen, () => catalog.keywordSearch(query.normalisedText, 20));
      await timed(parts.exactKeys, () => catalog.findByTextSha256(query.textSha256));
    }
    console.log('\nstage costs for unseen queries:');
    console.log(formatLatency('  embed (hashed n-grams, 256-d)', summarise(parts.embed)));
    console.log(formatLatency(`  vector ${VECTORS}, ${DOCUMENTS}`, summarise(parts.vector)));
    console.log(formatLatency('  keyword, vector candidates + all-terms', summarise(parts.keyword)));
    console.log(formatLatency('  keyword, any term over the corpus', summarise(parts.keywordOpen)));
    console.log(formatLatency('  exact text key (PG btree)', summarise(parts.exactKeys)));
    console.log(formatLatency('  gate: candidates by id (PG)', summarise(parts.gate)));
  } finally {
    await pool.end();
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
