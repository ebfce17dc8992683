import { EmbeddedVectorIndex, type StoredVector, type VectorStore } from './embedded-vector-index.js';
import { HashedNgramEmbedder } from './test-support/hashed-ngram-embedder.js';
import { VectorDimensionError } from './vector-index.js';

class MemoryStore implements VectorStore {
  readonly rows = new Map<string, StoredVector>();
  save(entry: StoredVector): Promise<void> {
    this.rows.set(entry.id, entry);
    return Promise.resolve();
  }
  remove(id: string): Promise<void> {
    this.rows.delete(id);
    return Promise.resolve();
  }
  async *loadAll(): AsyncIterable<readonly StoredVector[]> {
    await Promise.resolve();
    yield [...this.rows.values()];
  }
}

const v = (...values: number[]): Float32Array => Float32Array.from(values);

describe('EmbeddedVectorIndex', () => {
  it('returns exact cosine top-k with payloads', async () => {
    const index = new EmbeddedVectorIndex(3);
    await index.upsert('a', v(1, 0, 0), { asset_version_id: 'av-a' });
    await index.upsert('b', v(1, 1, 0), { asset_version_id: 'av-b' });
    await index.upsert('c', v(0, 0, 5), { asset_version_id: 'av-c' });
    const hits = await index.search(v(2, 0, 0), 2);
    expect(hits.map((h) => h.id)).toEqual(['a', 'b']);
    expect(hits[0]?.score).toBeCloseTo(1, 6);
    expect(hits[1]?.score).toBeCloseTo(Math.SQRT1_2, 6);
    expect(hits[0]?.payload).toEqual({ asset_version_id: 'av-a' });
    expect(await index.search(v(1, 0, 0), 10)).toHaveLength(3);
    expect(await index.search(v(1, 0, 0), 0)).toEqual([]);
  });

  it('upserts idempotently and deletes, keeping the matrix dense', async () => {
    const index = new EmbeddedVectorIndex(2, undefined, 1);
    for (let i = 0; i < 10; i += 1) await index.upsert(`id${i}`, v(Math.cos(i), Math.sin(i)), { asset_version_id: `av${i}` });
    await index.upsert('id3', v(Math.cos(3), Math.sin(3)), { asset_version_id: 'av3-new' });
    expect(index.size).toBe(10);
    await index.delete('id0');
    await index.delete('missing');
    expect(index.size).toBe(9);
    const [top] = await index.search(v(Math.cos(3), Math.sin(3)), 1);
    expect(top).toMatchObject({ id: 'id3', payload: { asset_version_id: 'av3-new' } });
    const [nine] = await index.search(v(Math.cos(9), Math.sin(9)), 1);
    expect(nine?.id).toBe('id9');
  });

  it('agrees with a brute-force cosine on embedded texts', async () => {
    const embedder = new HashedNgramEmbedder(128);
    const texts = Array.from({ length: 300 }, (_, i) => `problem ${i}: solve ${i % 7}x + ${i % 11} = ${i}`);
    const vectors = await embedder.embed(texts);
    const index = new EmbeddedVectorIndex(128);
    for (const [i, vector] of vectors.entries()) await index.upsert(`p${i}`, vector, { asset_version_id: `p${i}` });
    const [query] = await embedder.embed(['problem 42: solve 0x + 9 = 42']);
    if (query === undefined) throw new Error('no vector');
    const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
    const expected = vectors
      .map((vector, i) => ({ id: `p${i}`, score: cosine(query, vector) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 5);
    const hits = await index.search(query, 5);
    expect(hits.map((h) => h.id)).toEqual(expected.map((e) => e.id));
    expect(hits[0]?.id).toBe('p42');
  });

  it('persists through its store and reloads', async () => {
    const store = new MemoryStore();
    const first = new EmbeddedVectorIndex(2, store);
    await first.upsert('x', v(3, 4), { asset_version_id: 'av-x', problem_id: 'p1' });
    await first.upsert('y', v(0, 1), { asset_version_id: 'av-y' });
    await first.delete('y');
    expect(store.rows.get('x')?.vector).toEqual(v(0.6, 0.8));
    const second = new EmbeddedVectorIndex(2, store);
    await second.load();
    expect(second.size).toBe(1);
    expect(await second.search(v(3, 4), 1)).toEqual([{ id: 'x', score: expect.closeTo(1, 6), payload: { asset_version_id: 'av-x', problem_id: 'p1' } }]);
  });

  it('refuses vectors of another dimension', async () => {
    const index = new EmbeddedVectorIndex(3);
    await expect(index.upsert('a', v(1, 2), { asset_version_id: 'a' })).rejects.toBeInstanceOf(VectorDimensionError);
    await expect(index.search(v(1), 1)).rejects.toBeInstanceOf(VectorDimensionError);
  });
});
