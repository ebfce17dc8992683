import { freshDatabase } from '@openpaw/testing';
import pg from 'pg';
import { EmbeddedVectorIndex } from './embedded-vector-index.js';
import { bytesToVector, ensureEmbeddedVectorTables, PgVectorStore, vectorToBytes } from './pg-vector-store.js';

describe('EmbeddedVectorIndex persisted in PostgreSQL', () => {
  let pool: pg.Pool;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await freshDatabase('retrieval_vectors'), max: 4 });
    await ensureEmbeddedVectorTables(pool);
    await ensureEmbeddedVectorTables(pool);
  });

  afterAll(async () => {
    await pool.end();
  });

  it('encodes vectors as float32 little-endian bytes', () => {
    const vector = Float32Array.from([0.5, -1.25, 3e-8]);
    expect(bytesToVector(vectorToBytes(vector))).toEqual(vector);
    expect(vectorToBytes(vector)).toHaveLength(12);
  });

  it('writes through to the table and reloads after a restart', async () => {
    const store = new PgVectorStore(pool, 2);
    const index = new EmbeddedVectorIndex(3, store);
    await index.upsert('av-1', Float32Array.from([1, 0, 0]), { asset_version_id: 'av-1', problem_id: 'p-1' });
    await index.upsert('av-2', Float32Array.from([0, 1, 0]), { asset_version_id: 'av-2' });
    await index.upsert('av-3', Float32Array.from([0, 0, 1]), { asset_version_id: 'av-3' });
    await index.upsert('av-2', Float32Array.from([0, 2, 2]), { asset_version_id: 'av-2', problem_id: 'p-2' });
    await index.delete('av-3');

    const restarted = new EmbeddedVectorIndex(3, new PgVectorStore(pool, 2));
    await restarted.load();
    expect(restarted.size).toBe(2);
    const hits = await restarted.search(Float32Array.from([0, 1, 1]), 5);
    expect(hits[0]).toEqual({ id: 'av-2', score: expect.closeTo(1, 5), payload: { asset_version_id: 'av-2', problem_id: 'p-2' } });
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM retrieval.embedded_vectors');
    expect(rows[0]?.n).toBe('2');
  });

  it('refuses a row whose bytes do not match its dimension', async () => {
    await expect(
      pool.query("INSERT INTO retrieval.embedded_vectors (id, dimension, vector, payload) VALUES ('bad', 3, '\\x00', '{}')"),
    ).rejects.toThrow(/check constraint/);
  });
});
