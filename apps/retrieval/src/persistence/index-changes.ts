import type { Pool } from 'pg';
import type { StoredVector } from '../domain/embedded-vector-index.js';
import { bytesToVector } from '../domain/pg-vector-store.js';
import type { VectorPayload } from '../domain/vector-index.js';

/**
 * A position in the change feed: a timestamp as PostgreSQL prints it (text keeps its microseconds,
 * which a JS Date would drop) and the key after which to continue within that timestamp.
 */
interface Cursor {
  readonly at: string;
  readonly key: string;
}

/** How far back each catch-up re-reads: a write whose statement began earlier may commit after we looked. */
const OVERLAP = `interval '5 seconds'`;

/** Where the next catch-up starts, taken before reading (what is written meanwhile is read next time). */
export async function changeFeedStart(pool: Pool): Promise<string> {
  const { rows } = await pool.query<{ since: string }>(`select (now() - ${OVERLAP})::text as since`);
  const since = rows[0]?.since;
  if (since === undefined) throw new Error('the database did not tell the time');
  return since;
}

export interface CatalogPhashChange {
  readonly docId: number;
  readonly assetVersionId: string;
  /** Withdrawn (WithdrawProblem): its vector must leave memory as well. */
  readonly withdrawn: boolean;
  /** Absent when the row has no pHash (or none of a known version) or is withdrawn: any indexed hash of it must go. */
  readonly phash?: bigint;
  readonly phashVersion?: string;
}

/** Catalogue rows changed since `since` (their pHash side: doc id, hash, version), in pages. */
export async function* catalogChangesSince(pool: Pool, since: string, pageSize = 5_000): AsyncIterable<readonly CatalogPhashChange[]> {
  let cursor: Cursor = { at: since, key: '' };
  for (;;) {
    const { rows } = await pool.query<{ doc_id: string; phash: string | null; phash_version: string | null; withdrawn: boolean; at: string; key: string }>(
      `select doc_id, phash, phash_version, withdrawn_at is not null as withdrawn, updated_at::text as at, asset_version_id as key
         from retrieval.indexed_problems
        where (updated_at, asset_version_id) > ($1::timestamptz, $2)
        order by updated_at, asset_version_id
        limit $3`,
      [cursor.at, cursor.key, pageSize],
    );
    if (rows.length > 0) {
      yield rows.map((row) => ({
        docId: Number(row.doc_id),
        assetVersionId: row.key,
        withdrawn: row.withdrawn,
        ...(row.phash === null || row.phash_version === null || row.withdrawn ? {} : { phash: BigInt.asUintN(64, BigInt(row.phash)), phashVersion: row.phash_version }),
      }));
    }
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < pageSize) return;
    cursor = { at: last.at, key: last.key };
  }
}

/** Embedded vectors written since `since`, in pages. */
export async function* vectorChangesSince(pool: Pool, since: string, pageSize = 2_000): AsyncIterable<readonly StoredVector[]> {
  let cursor: Cursor = { at: since, key: '' };
  for (;;) {
    const { rows } = await pool.query<{ id: string; vector: Buffer; payload: VectorPayload; at: string }>(
      `select id, vector, payload, updated_at::text as at
         from retrieval.embedded_vectors
        where (updated_at, id) > ($1::timestamptz, $2)
        order by updated_at, id
        limit $3`,
      [cursor.at, cursor.key, pageSize],
    );
    if (rows.length > 0) yield rows.map((row) => ({ id: row.id, vector: bytesToVector(row.vector), payload: row.payload }));
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < pageSize) return;
    cursor = { at: last.at, key: last.id };
  }
}
