import { EmbeddedVectorIndex } from './embedded-vector-index.js';
import { HnswVectorIndex } from './hnsw-vector-index.js';
import { VectorDimensionError } from './vector-index.js';

/** Deterministic pseudo-random unit-ish vectors (xorshift), so the spec needs no fixtures. */
function vectors(count: number, dimension: number, seed = 7): Float32Array[] {
  let state = seed;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) / 0xffffffff) * 2 - 1;
  };
  return Array.from({ length: count }, () => Float32Array.from({ length: dimension }, next));
}

describe('HnswVectorIndex', () => {
  it('finds what exact search finds (recall@10 ≥ 0.95 on 2000 random vectors)', async () => {
    const data = vectors(2000, 64);
    const hnsw = new HnswVectorIndex(64);
    const exact = new EmbeddedVectorIndex(64);
    hnsw.bulkLoad(data.map((vector, i) => ({ id: `v${i}`, vector, payload: { asset_version_id: `av${i}` } })));
    for (const [i, v] of data.entries()) await exact.upsert(`v${i}`, v, { asset_version_id: `av${i}` });
    let found = 0;
    const queries = vectors(50, 64, 99);
    for (const q of queries) {
      const truth = new Set((await exact.search(q, 10)).map((h) => h.id));
      for (const hit of await hnsw.search(q, 10)) if (truth.has(hit.id)) found += 1;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('reports cosine similarity and the payload, replaces on upsert and forgets on delete', async () => {
    const index = new HnswVectorIndex(3);
    await index.upsert('a', Float32Array.from([1, 0, 0]), { asset_version_id: 'av-a' });
    await index.upsert('b', Float32Array.from([0, 1, 0]), { asset_version_id: 'av-b' });
    const [top] = await index.search(Float32Array.from([2, 0.1, 0]), 1);
    expect(top?.id).toBe('a');
    expect(top?.payload).toEqual({ asset_version_id: 'av-a' });
    // Half precision: a unit vector's cosine is kept to within 0.001.
    expect(Math.abs((top?.score ?? 0) - 2 / Math.sqrt(4.01))).toBeLessThan(1e-3);

    await index.upsert('a', Float32Array.from([0, 0, 1]), { asset_version_id: 'av-a2' });
    expect(index.size).toBe(2);
    expect((await index.search(Float32Array.from([0, 0, 1]), 1))[0]).toMatchObject({ id: 'a', payload: { asset_version_id: 'av-a2' } });
    await index.delete('a');
    expect((await index.search(Float32Array.from([0, 0, 1]), 5)).map((h) => h.id)).toEqual(['b']);
    expect(index.size).toBe(1);
  });

  it('refuses vectors of another dimension', async () => {
    const index = new HnswVectorIndex(3);
    await expect(index.upsert('x', new Float32Array(4), { asset_version_id: 'x' })).rejects.toBeInstanceOf(VectorDimensionError);
    await expect(index.search(new Float32Array(2), 1)).rejects.toBeInstanceOf(VectorDimensionError);
  });
});
