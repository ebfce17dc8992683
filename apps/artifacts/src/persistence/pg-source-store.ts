import type { DataSource } from 'typeorm';
import type { IndexedChunk } from '../domain/retrieval/rank-chunks.js';
import type { ChunkRecord, SourceRecord, SourceStore, UpsertOutcome } from '../ports.js';

interface ChunkRow {
  readonly chunk_id: string;
  readonly source_id: string;
  readonly ordinal: number;
  readonly text: string;
  readonly embedding: Buffer;
}

function toBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function toVector(bytes: Buffer): Float32Array {
  // Copied: a Buffer's offset into its pool need not be 4-byte aligned.
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(copy.length / 4));
}

/** `SourceStore` over PostgreSQL (schema `artifacts`). */
export class PgSourceStore implements SourceStore {
  constructor(private readonly dataSource: DataSource) {}

  async upsert(source: SourceRecord, chunks: readonly ChunkRecord[], revisionAt: Date): Promise<UpsertOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const existing = await manager.query<{ user_id: string; notebook_id: string; revision_at: Date }[]>(
        `select user_id, notebook_id, revision_at from sources where source_id = $1 for update`,
        [source.sourceId],
      );
      const row = existing[0];
      if (row !== undefined) {
        if (row.user_id !== source.userId || row.notebook_id !== source.notebookId) return 'foreign';
        if (row.revision_at.getTime() > revisionAt.getTime()) return 'stale';
      }
      await manager.query(
        `insert into sources (source_id, user_id, notebook_id, kind, title, uri, content_sha256, text, revision_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict (source_id) do update set kind = excluded.kind, title = excluded.title, uri = excluded.uri,
           content_sha256 = excluded.content_sha256, text = excluded.text, revision_at = excluded.revision_at, updated_at = now()`,
        [source.sourceId, source.userId, source.notebookId, source.kind, source.title, source.uri, source.contentSha256, source.text, revisionAt],
      );
      const ids = chunks.map((c) => c.chunkId);
      await manager.query(`delete from chunks where source_id = $1 and not (chunk_id = any($2::text[]))`, [source.sourceId, ids]);
      if (chunks.length > 0) {
        await manager.query(
          `insert into chunks (chunk_id, source_id, user_id, notebook_id, ordinal, text, embedding, embedding_version)
           select c.chunk_id, $1, $2, $3, c.ordinal, c.text, c.embedding, c.embedding_version
             from unnest($4::text[], $5::int[], $6::text[], $7::bytea[], $8::text[]) as c(chunk_id, ordinal, text, embedding, embedding_version)
           on conflict (chunk_id) do update set embedding = excluded.embedding, embedding_version = excluded.embedding_version`,
          [
            source.sourceId,
            source.userId,
            source.notebookId,
            ids,
            chunks.map((c) => c.ordinal),
            chunks.map((c) => c.text),
            chunks.map((c) => toBytes(c.embedding)),
            chunks.map((c) => c.embeddingVersion),
          ],
        );
      }
      return 'applied';
    });
  }

  // A chunk's `created_at` is when it was indexed: a re-upsert of the same chunk id keeps it, and a
  // replaced source's new text gets new chunk ids, so new rows.
  async notebookChunks(userId: string, notebookId: string, sourceIds: readonly string[] | undefined, embeddingVersion: string, asOf?: string): Promise<IndexedChunk[]> {
    const rows = await this.dataSource.query<ChunkRow[]>(
      `select chunk_id, source_id, ordinal, text, embedding from chunks
        where user_id = $1 and notebook_id = $2 and embedding_version = $3 and ($4::uuid[] is null or source_id = any($4::uuid[]))
          and ($5::timestamptz is null or created_at <= $5::timestamptz)
        order by source_id, ordinal`,
      [userId, notebookId, embeddingVersion, sourceIds === undefined ? null : [...sourceIds], asOf ?? null],
    );
    return rows.map((r) => ({ chunkId: r.chunk_id, sourceId: r.source_id, ordinal: r.ordinal, text: r.text, embedding: toVector(r.embedding) }));
  }

  async existingSources(userId: string, notebookId: string, sourceIds: readonly string[], asOf?: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ source_id: string }[]>(
      `select source_id from sources
        where user_id = $1 and notebook_id = $2 and source_id = any($3::uuid[]) and ($4::timestamptz is null or created_at <= $4::timestamptz)`,
      [userId, notebookId, [...sourceIds], asOf ?? null],
    );
    return rows.map((r) => r.source_id);
  }

  async notebookSources(userId: string, notebookId: string): Promise<string[]> {
    const rows = await this.dataSource.query<{ source_id: string }[]>(`select source_id from sources where user_id = $1 and notebook_id = $2 order by source_id`, [
      userId,
      notebookId,
    ]);
    return rows.map((r) => r.source_id);
  }
}
