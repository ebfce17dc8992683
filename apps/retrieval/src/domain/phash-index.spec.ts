import { MultiIndexHashIndex, popcount32 } from './phash-index.js';

/** xorshift64*: reproducible random 64-bit hashes. */
function randomHashes(seed: bigint): () => bigint {
  let state = seed;
  return () => {
    state ^= state >> 12n;
    state ^= (state << 25n) & 0xffffffffffffffffn;
    state ^= state >> 27n;
    return (state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
  };
}

function flipBits(hash: bigint, count: number, next: () => bigint): bigint {
  const bits = new Set<number>();
  while (bits.size < count) bits.add(Number(next() % 64n));
  let out = hash;
  for (const bit of bits) out ^= 1n << BigInt(bit);
  return out;
}

describe('popcount32', () => {
  it('counts bits', () => {
    expect(popcount32(0)).toBe(0);
    expect(popcount32(0xffffffff)).toBe(32);
    expect(popcount32(0x80000001)).toBe(2);
    expect(popcount32(0x12345678)).toBe(13);
  });
});

describe('MultiIndexHashIndex', () => {
  it('finds exactly what a linear scan finds within distance 7 (100 % recall), on random data with planted neighbours', () => {
    const next = randomHashes(0x9e3779b97f4a7c15n);
    const index = new MultiIndexHashIndex({ minCompactionDelta: 1_000_000 });
    const hashes: bigint[] = [];
    for (let id = 0; id < 20_000; id += 1) hashes.push(next());
    index.bulkLoad(hashes.map((hash, id) => ({ id, hash })));
    // Neighbours at every distance 0..9 of some stored hashes, inserted after the build (side table).
    let id = hashes.length;
    for (let i = 0; i < 500; i += 1) {
      const base = hashes[i * 7] ?? 0n;
      index.insert(id, flipBits(base, i % 10, next));
      id += 1;
    }
    let found = 0;
    for (let q = 0; q < 1000; q += 1) {
      // Queries near stored hashes, at distances 0..12, so both sides of the bound are exercised.
      const query = flipBits(hashes[(q * 13) % hashes.length] ?? 0n, q % 13, next);
      const viaIndex = index.search(query, 7);
      expect(viaIndex).toEqual(index.searchLinear(query, 7));
      found += viaIndex.length;
    }
    expect(found).toBeGreaterThan(500);
  });

  it('also matches the linear scan at other radii', () => {
    const next = randomHashes(42n);
    const hashes = Array.from({ length: 5000 }, () => next());
    const index = MultiIndexHashIndex.fromEntries(hashes.map((hash, id) => ({ id, hash })));
    for (const radius of [0, 3, 8, 11]) {
      for (let q = 0; q < 200; q += 1) {
        const query = flipBits(hashes[q] ?? 0n, q % 14, next);
        expect(index.search(query, radius)).toEqual(index.searchLinear(query, radius));
      }
    }
  });

  it('sorts matches nearest first and reports distances', () => {
    const index = new MultiIndexHashIndex();
    index.insert(1, 0b1111n);
    index.insert(2, 0b0000n);
    index.insert(3, 0b0111n);
    expect(index.search(0n, 7)).toEqual([
      { id: 2, distance: 0 },
      { id: 3, distance: 3 },
      { id: 1, distance: 4 },
    ]);
  });

  it('supports insert, replace and remove, before and after compaction', () => {
    const index = new MultiIndexHashIndex({ minCompactionDelta: 2, compactionRatio: 0 });
    const a = 0x0123456789abcdefn;
    const b = 0xfedcba9876543210n;
    index.insert(5, a);
    index.insert(5, a);
    expect(index.size).toBe(1);
    expect(index.search(a, 0)).toEqual([{ id: 5, distance: 0 }]);
    index.insert(5, b);
    expect(index.hashOf(5)).toBe(b);
    expect(index.search(a, 7)).toEqual([]);
    expect(index.search(b, 0)).toEqual([{ id: 5, distance: 0 }]);
    for (let id = 10; id < 20; id += 1) index.insert(id, a ^ BigInt(id));
    expect(index.remove(5)).toBe(true);
    expect(index.remove(5)).toBe(false);
    expect(index.has(5)).toBe(false);
    expect(index.search(b, 7)).toEqual([]);
    index.compact();
    expect(index.size).toBe(10);
    expect(index.search(a, 7)).toEqual(index.searchLinear(a, 7));
    expect(index.search(a, 7)).toHaveLength(10);
    index.insert(5, b);
    expect(index.search(b, 0)).toEqual([{ id: 5, distance: 0 }]);
  });

  it('rebuilds from streamed pages and replaces previous content', async () => {
    const index = new MultiIndexHashIndex();
    index.insert(99, 123n);
    async function* pages(): AsyncIterable<{ id: number; hash: bigint }[]> {
      await Promise.resolve();
      yield [{ id: 1, hash: 1n }];
      yield [{ id: 2, hash: 3n }];
    }
    await index.bulkLoadAsync(pages());
    expect(index.size).toBe(2);
    expect(index.has(99)).toBe(false);
    expect(index.search(1n, 1).map((m) => m.id)).toEqual([1, 2]);
  });

  it('keeps hashes in flat typed arrays: about 25 bytes each (250 MB at 10M)', () => {
    const n = 1 << 20;
    const index = new MultiIndexHashIndex({ initialCapacity: n });
    const next = randomHashes(7n);
    index.bulkLoad(Array.from({ length: n }, (_, id) => ({ id, hash: next() })));
    expect(index.memoryBytes() / index.size).toBeLessThan(27);
  });

  it('refuses ids that cannot be slots', () => {
    const index = new MultiIndexHashIndex();
    expect(() => index.insert(-1, 0n)).toThrow(RangeError);
    expect(() => index.insert(1.5, 0n)).toThrow(RangeError);
  });
});
