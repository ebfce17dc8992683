/**
 * The embedded default's ANN index (issue 16): HNSW (usearch) against the exact cosine scan it
 * replaced, at 100k and 1M problems embedded by the providers' local embedder (384-d): build time, memory,
 * search latency (k = 20, one query at a time) and recall@20 against exact search.
 *
 * Run: npm run build && node --expose-gc dist/bench/ingestion-retrieval/ann-index.js [sizes=100000,1000000] [queries=300]
 */
import { embedText } from '@openpaw/providers';
import { DEFAULT_HNSW_SETTINGS, EmbeddedVectorIndex, HnswVectorIndex } from '../../apps/retrieval/src/public-api.js';
import { generateAnyProblem } from './support/problem-corpus.js';
import { randomInt, seededRandom } from './support/random.js';
import { formatLatency, summarise } from './support/stats.js';

const SIZES = (process.argv[2] ?? '100000,1000000').split(',').map(Number);
const QUERIES = Number(process.argv[3] ?? 300);
const DIMENSION = 384;
const EXACT_SAMPLE = 50;

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

async function main(): Promise<void> {
  for (const size of SIZES) {
    const random = seededRandom(size);
    const text = (): string => `Exercise ${randomInt(random, 1, 400)}. ${generateAnyProblem(random).text}`;
    const started = Date.now();
    const hnsw = new HnswVectorIndex(DIMENSION, { ...DEFAULT_HNSW_SETTINGS, loadThreads: 2 });
    const exact = new EmbeddedVectorIndex(DIMENSION, undefined, size);
    const rssBefore = process.memoryUsage().rss;
    let embedMs = 0;
    let buildMs = 0;
    const page: { id: string; vector: Float32Array; payload: { asset_version_id: string } }[] = [];
    const flush = (): void => {
      const t = Date.now();
      hnsw.bulkLoad(page);
      buildMs += Date.now() - t;
      page.length = 0;
    };
    for (let i = 0; i < size; i += 1) {
      const t = Date.now();
      const vector = embedText(text(), DIMENSION);
      embedMs += Date.now() - t;
      page.push({ id: `v${i}`, vector, payload: { asset_version_id: `av-${i}` } });
      await exact.upsert(`v${i}`, vector, { asset_version_id: `av-${i}` });
      if (page.length === 10_000) flush();
      // Progress at large sizes, so a build that cannot finish still reports its rate.
      if ((i + 1) % 100_000 === 0 && size > 100_000) console.log(`  ${i + 1} vectors: embedded ${(embedMs / 1000).toFixed(0)} s, HNSW ${(buildMs / 1000).toFixed(0)} s, RSS ${mib(process.memoryUsage().rss)}`);
    }
    flush();
    console.log(`\n${size} vectors × ${DIMENSION}: embedded in ${(embedMs / 1000).toFixed(1)} s, HNSW built in ${(buildMs / 1000).toFixed(1)} s (2 threads, M ${DEFAULT_HNSW_SETTINGS.connectivity}, ef_c ${DEFAULT_HNSW_SETTINGS.expansionAdd}, ef ${DEFAULT_HNSW_SETTINGS.expansionSearch}, ${DEFAULT_HNSW_SETTINGS.precision}); total ${((Date.now() - started) / 1000).toFixed(0)} s, RSS +${mib(process.memoryUsage().rss - rssBefore)} (exact matrix ${mib(size * DIMENSION * 4)} included)`);

    const queries = Array.from({ length: QUERIES }, () => embedText(text(), DIMENSION));
    for (const q of queries.slice(0, 20)) hnsw.searchSync(q, 20);
    const annTimes: number[] = [];
    for (const q of queries) {
      const t = process.hrtime.bigint();
      hnsw.searchSync(q, 20);
      annTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const exactTimes: number[] = [];
    let found = 0;
    for (const q of queries.slice(0, EXACT_SAMPLE)) {
      const t = process.hrtime.bigint();
      const truth = exact.searchSync(q, 20);
      exactTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
      const got = new Set(hnsw.searchSync(q, 20).map((h) => h.id));
      for (const h of truth) if (got.has(h.id)) found += 1;
    }
    console.log(formatLatency('  HNSW search k=20', summarise(annTimes)));
    console.log(formatLatency('  exact scan k=20', summarise(exactTimes)));
    console.log(`  recall@20 vs exact: ${(found / (EXACT_SAMPLE * 20)).toFixed(4)} over ${EXACT_SAMPLE} queries`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
