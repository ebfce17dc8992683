import type { Pool } from 'pg';
import type { StoredVector, VectorStore } from './embedded-vector-index.js';
import type { VectorPayload } from './vector-index.js';

/**
 * Table of the embedded vector index. Vectors are float32 little-endian in a bytea: a quarter of the
 * size of `real[]`, and read back into a Float32Array without parsing. Migrations are not written
 * yet, so the DDL is exposed for them to adopt verbatim.
 */
export const EMBEDDED_VECTORS_DDL = `
CREATE SCHEMA IF NOT EXISTS retrieval;
CREATE TABLE IF NOT EXISTS retrieval.embedded_vectors (
  id          text PRIMARY KEY,
  dimension   integer NOT NULL CHECK (dimension > 0),
  vector      bytea NOT NULL CHECK (octet_length(vector) = 4 * dimension),
  payload     jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
`;

export async function ensureEmbeddedVectorTables(pool: Pool): Promise<void> {
  await pool.query(EMBEDDED_VECTORS_DDL);
}

export function vectorToBytes(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i += 1) bytes.writeFloatLE(vector[i] ?? 0, i * 4);
  return bytes;
}

export function bytesToVector(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i += 1) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

interface VectorRow {
  id: string;
  vector: Buffer;
  payload: VectorPayload;
}

export class PgVectorStore implements VectorStore {
  constructor(
    private readonly pool: Pool,
    private readonly pageSize = 5000,
  ) {}

  async save(entry: StoredVector): Promise<void> {
    await this.pool.query(
      `INSERT INTO retrieval.embedded_vectors (id, dimension, vector, payload)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET dimension = EXCLUDED.dimension, vector = EXCLUDED.vector,
         payload = EXCLUDED.payload, updated_at = now()`,
      [entry.id, entry.vector.length, vectorToBytes(entry.vector), JSON.stringify(entry.payload)],
    );
  }

  async remove(id: string): Promise<void> {
    await this.pool.query('DELETE FROM retrieval.embedded_vectors WHERE id = $1', [id]);
  }

  async *loadAll(): AsyncIterable<readonly StoredVector[]> {
    // Keyset pagination: stable under concurrent inserts and no long-lived cursor transaction.
    let after = '';
    for (;;) {
      const { rows } = await this.pool.query<VectorRow>(
        'SELECT id, vector, payload FROM retrieval.embedded_vectors WHERE id > $1 ORDER BY id LIMIT $2',
        [after, this.pageSize],
      );
      if (rows.length === 0) return;
      yield rows.map((row) => ({ id: row.id, vector: bytesToVector(row.vector), payload: row.payload }));
      after = rows[rows.length - 1]?.id ?? after;
      if (rows.length < this.pageSize) return;
    }
  }
}
