import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CaptureSnapshot, type RetrievalSnapshot, SnapshotCaptured } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { COMMAND_PUBLISHER, type CommandPublisher, GATEWAY_SOURCE } from '../../runs/ports.js';
import { ARTIFACTS_API_CONFIG, type ArtifactsApiConfig } from '../config.js';
import { ArtifactReplies } from '../replies/artifact-replies.js';

/** The spec's k: chunks in a job's retrieval snapshot. */
export const SNAPSHOT_K = 5;

export interface SnapshotRequest {
  /** The job the snapshot is for (its run id). */
  readonly jobId: string;
  readonly userId: string;
  readonly notebookId: string;
  readonly sourceIds: readonly string[];
  readonly query: string;
}

export type SnapshotOutcome =
  | { readonly kind: 'captured'; readonly snapshot: RetrievalSnapshot | null }
  | { readonly kind: 'unknown_sources'; readonly error: string }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'timeout' };

/**
 * Captures a job's retrieval snapshot while the job is created (spec 02: "at job creation time (in
 * router or endpoint)"): `CaptureSnapshot` to the artifacts service, which owns the sources, and its
 * answer awaited. So a source changed a moment after the request cannot leak into the job, and
 * unknown source ids are refused now instead of failing the job later.
 */
@Injectable()
export class SnapshotCapture {
  constructor(
    private readonly replies: ArtifactReplies,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    @Inject(ARTIFACTS_API_CONFIG) private readonly config: ArtifactsApiConfig,
  ) {}

  async capture(request: SnapshotRequest): Promise<SnapshotOutcome> {
    const commandId = randomUUID();
    const traceparent = currentTraceparent();
    const reply = await this.replies.request(commandId, { timeoutMs: this.config.snapshotTimeoutMs }, () =>
      this.publisher.publish(
        CaptureSnapshot,
        { runId: request.jobId, userId: request.userId, notebookId: request.notebookId, sourceIds: [...request.sourceIds], query: request.query, k: SNAPSHOT_K },
        { id: commandId, source: GATEWAY_SOURCE, correlationId: commandId, userId: request.userId, ...(traceparent === undefined ? {} : { traceparent }) },
      ),
    );
    if (reply === undefined) return { kind: 'timeout' };
    switch (reply.type) {
      case SnapshotCaptured.subject:
        return { kind: 'captured', snapshot: reply.data.snapshot };
      case 'openpaw.evt.artifact.ArtifactStepFailed.v1':
        return reply.data.errorCode === 'unknown_sources' ? { kind: 'unknown_sources', error: reply.data.error } : { kind: 'failed', error: reply.data.error };
      default:
        return { kind: 'failed', error: `unexpected reply ${reply.type}` };
    }
  }
}
