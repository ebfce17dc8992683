/**
 * pHash index benchmark: multi-index hashing vs a linear scan, at 1M and 10M uniformly random 64-bit
 * hashes, radius 7 (spec 01's "distance < 8"). Uniform hashes are the worst case for bucket sizes being
 * even and the best case for nothing else: real pHashes cluster, which makes some buckets fuller.
 *
 * Queries: "near" = a stored hash with 0–7 random bits flipped (must be found; recall is checked against
 * the linear scan on a sample), "random" = a fresh random hash (almost never has a neighbour).
 *
 * Run: npm run build && node dist/bench/ingestion-retrieval/phash-index.js [sizes=1000000,10000000]
 */
import { MultiIndexHashIndex, type PhashIndexEntry } from '../../apps/retrieval/src/public-api.js';
import { formatLatency, summarise } from './support/stats.js';

function xorshift32(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

const toBig = (hi: number, lo: number): bigint => (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);

function flip(hash: bigint, bits: number, next: () => number): bigint {
  const chosen = new Set<number>();
  while (chosen.size < bits) chosen.add(next() % 64);
  let out = hash;
  for (const bit of chosen) out ^= 1n << BigInt(bit);
  return out;
}

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

function run(size: number): void {
  console.log(`\n=== ${size.toLocaleString('en')} random hashes ===`);
  const next = xorshift32(size);
  const index = new MultiIndexHashIndex({ initialCapacity: size });
  function* entries(): Iterable<PhashIndexEntry> {
    for (let id = 0; id < size; id += 1) yield { id, hash: toBig(next(), next()) };
  }
  const buildMs = time(() => index.bulkLoad(entries()));
  const usage = process.memoryUsage();
  console.log(`build ${(buildMs / 1000).toFixed(2)} s; index arrays ${mib(index.memoryBytes())} (${(index.memoryBytes() / size).toFixed(1)} B/hash); process rss ${mib(usage.rss)}, array buffers ${mib(usage.arrayBuffers)}`);

  const queryNext = xorshift32(7 * size + 1);
  const nearQueries: bigint[] = [];
  for (let i = 0; i < 5000; i += 1) {
    const id = queryNext() % size;
    nearQueries.push(flip(index.hashOf(id) ?? 0n, i % 8, queryNext));
  }
  const randomQueries = Array.from({ length: 5000 }, () => toBig(queryNext(), queryNext()));
  for (const q of nearQueries.slice(0, 500)) index.search(q, 7);

  let found = 0;
  const nearTimes = nearQueries.map((q) =>
    time(() => {
      found += index.search(q, 7).length;
    }),
  );
  const randomTimes = randomQueries.map((q) => time(() => index.search(q, 7)));
  console.log(formatLatency('MIH search, near queries', summarise(nearTimes)));
  console.log(formatLatency('MIH search, random queries', summarise(randomTimes)));
  console.log(`  near queries returned ${found} matches (≥ 1 each expected: ${found >= nearQueries.length ? 'yes' : 'NO'})`);

  const linearSample = size >= 5_000_000 ? 30 : 100;
  let agree = 0;
  const linearTimes: number[] = [];
  for (const q of nearQueries.slice(0, linearSample)) {
    let linear: ReturnType<MultiIndexHashIndex['searchLinear']> = [];
    linearTimes.push(time(() => (linear = index.searchLinear(q, 7))));
    if (JSON.stringify(linear) === JSON.stringify(index.search(q, 7))) agree += 1;
  }
  console.log(formatLatency('linear scan', summarise(linearTimes)));
  console.log(`  recall vs linear scan on ${linearSample} near queries: ${agree}/${linearSample} identical result sets`);

  const inserts = 20_000;
  const insertNext = xorshift32(99);
  const insertTimes: number[] = [];
  for (let i = 0; i < inserts; i += 1) {
    const hash = toBig(insertNext(), insertNext());
    insertTimes.push(time(() => index.insert(size + i, hash)));
  }
  console.log(formatLatency(`insert after build (${inserts})`, summarise(insertTimes)));
  const withDelta = nearQueries.slice(0, 2000).map((q) => time(() => index.search(q, 7)));
  console.log(formatLatency('MIH search with side table', summarise(withDelta)));
  const compactMs = time(() => index.compact());
  console.log(`compaction (fold side table into CSR) ${compactMs.toFixed(0)} ms`);
}

const sizes = (process.argv[2] ?? '1000000,10000000').split(',').map(Number);
for (const size of sizes) {
  run(size);
  (globalThis as { gc?: () => void }).gc?.();
}
