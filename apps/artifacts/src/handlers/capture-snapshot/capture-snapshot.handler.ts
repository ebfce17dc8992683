import { Inject, Injectable } from '@nestjs/common';
import { ArtifactStepFailed, type CaptureSnapshot, type MessageData, type RetrievalSnapshot, SnapshotCaptured } from '@openpaw/contracts';
import type { Embedder } from '@openpaw/providers';
import { type Reply, replyTo } from '@openpaw/messaging';
import { type RankedChunk, rankChunks } from '../../domain/retrieval/rank-chunks.js';
import { ARTIFACTS_EMBEDDER, SOURCE_STORE, type SourceStore } from '../../ports.js';
import { embeddingVersionOf } from '../add-source/add-source.handler.js';

export interface CaptureSnapshotCommand {
  readonly commandId: string;
  readonly data: MessageData<typeof CaptureSnapshot>;
}

export type RetrievalOutcome =
  | { readonly kind: 'retrieved'; readonly chunks: readonly RankedChunk[]; readonly sourceIds: readonly string[]; readonly embeddingVersion: string }
  | { readonly kind: 'unknownSources'; readonly missing: readonly string[] };

/** The top `k` chunks of a notebook (of `sourceIds` only, when given) for a query. Shared by snapshots and chat. */
@Injectable()
export class NotebookRetriever {
  constructor(
    @Inject(SOURCE_STORE) private readonly sources: SourceStore,
    @Inject(ARTIFACTS_EMBEDDER) private readonly embedder: Embedder,
  ) {}

  /** With `asOf`, the notebook as it was then: sources added and chunks indexed later are left out. */
  async retrieve(userId: string, notebookId: string, sourceIds: readonly string[], query: string, k: number, asOf?: string): Promise<RetrievalOutcome> {
    if (sourceIds.length > 0) {
      const existing = new Set(await this.sources.existingSources(userId, notebookId, sourceIds, asOf));
      const missing = sourceIds.filter((id) => !existing.has(id));
      if (missing.length > 0) return { kind: 'unknownSources', missing };
    }
    const embeddingVersion = embeddingVersionOf(this.embedder);
    const chunks = await this.sources.notebookChunks(userId, notebookId, sourceIds.length > 0 ? sourceIds : undefined, embeddingVersion, asOf);
    const searched = sourceIds.length > 0 ? [...sourceIds] : [...new Set(chunks.map((c) => c.sourceId))].sort();
    if (chunks.length === 0) return { kind: 'retrieved', chunks: [], sourceIds: searched, embeddingVersion };
    const [queryVector] = (await this.embedder.embed([query])).vectors;
    return { kind: 'retrieved', chunks: rankChunks(query, queryVector ?? new Float32Array(), chunks, k), sourceIds: searched, embeddingVersion };
  }
}

/**
 * CaptureSnapshot: the job's retrieval snapshot, taken once when the job is created (spec 02): the
 * top k chunks for the request with their text, chunk and source ids, the embedding version and
 * the capture time. The job stores it; the worker never queries the index again. A notebook
 * without sources has no snapshot (`null`); unknown source ids fail the step. A capture the job
 * took itself after the request (deferred) carries the request's time as `asOf`: only the chunks
 * indexed by then are searched, so it equals a capture at creation, and `captured_at` is `asOf`.
 * `asOf` is PostgreSQL's clock (the gateway reads it), the one `created_at` is stamped by: it is
 * handed to the query as written, to the microsecond.
 */
@Injectable()
export class CaptureSnapshotHandler {
  constructor(private readonly retriever: NotebookRetriever) {}

  async execute(command: CaptureSnapshotCommand): Promise<readonly Reply[]> {
    const { data } = command;
    const { asOf } = data;
    const outcome = await this.retriever.retrieve(data.userId, data.notebookId, data.sourceIds, data.query, data.k, asOf);
    if (outcome.kind === 'unknownSources') {
      return [
        replyTo(command.commandId, ArtifactStepFailed, {
          runId: data.runId,
          commandId: command.commandId,
          step: 'snapshot',
          errorCode: 'unknown_sources',
          error: `unknown source ids in notebook ${data.notebookId}: ${outcome.missing.join(', ')}`,
        }),
      ];
    }
    const snapshot: RetrievalSnapshot | null =
      outcome.chunks.length === 0
        ? null
        : {
            chunks: outcome.chunks.map((c) => ({ chunk_id: c.chunkId, source_id: c.sourceId, text: c.text })),
            source_ids: [...outcome.sourceIds],
            embedding_version: outcome.embeddingVersion,
            captured_at: asOf ?? new Date().toISOString(),
          };
    return [replyTo(command.commandId, SnapshotCaptured, { runId: data.runId, commandId: command.commandId, snapshot })];
  }
}
