import { Injectable } from '@nestjs/common';
import { ARTIFACT_JOB_WORKFLOW, type ArtifactJobInput, artifactJobInput, type ArtifactOptions, type ArtifactType } from '@openpaw/contracts';
import { RunSubmitter } from '../../runs/submit/run-submitter.js';
import { DatabaseClock } from './database-clock.js';
import { artifactFingerprint, artifactJobKey, sortedSourceIds } from './fingerprint.js';
import { SnapshotCapture, type SnapshotOutcome } from './snapshot-capture.js';

export interface CreateArtifactJobCommand {
  readonly userId: string;
  readonly notebookId: string;
  readonly artifactType: ArtifactType;
  /** The user's message: the job's content. */
  readonly content: string;
  readonly sourceIds: readonly string[];
  /** Resolved (`resolveOptions`): part of the fingerprint. */
  readonly options: ArtifactOptions;
  readonly intentReason: string;
}

export interface CreatedArtifactJob {
  readonly kind: 'created';
  readonly jobId: string;
  /** The job's state: `pending` for a new job, the current state of an active one. */
  readonly status: string;
  /** True when an active job with the same fingerprint was returned as it is. */
  readonly existing: boolean;
  readonly fingerprint: string;
  readonly sequence: number;
  /**
   * A new job's retrieval snapshot: `captured` while the request waited, or `deferred` when the
   * artifacts service did not answer in time, so the job was started without one and captures it as
   * its first step, as of the request's time (the same snapshot). Absent for an existing job.
   */
  readonly snapshot?: 'captured' | 'deferred';
}

/** A new job whose snapshot was refused (unknown sources, or the capture failed): nothing was started. */
export interface RefusedArtifactJob {
  readonly kind: 'refused';
  readonly snapshot: Exclude<SnapshotOutcome, { kind: 'captured' } | { kind: 'timeout' }>;
}

/** More jobs than this of one fingerprint means something is wrong (each one was asked for and finished). */
const MAX_SEQUENCE = 10_000;

/**
 * Creates an artifact job, idempotently (spec 02): the fingerprint of (user, notebook, type, sorted
 * sources, options) names a sequence of jobs, job n's run id derived from (fingerprint, n). The
 * projection is walked from n = 1: an active job is returned as it is (a duplicate request); past
 * a finished one the next n is tried; the first unknown n is started. Concurrent duplicates all
 * reach the same unknown n, so the same run id and the same `StartRun` message id: JetStream and the
 * coordinator make them one job. After completion the next request finds job n terminal and
 * starts n + 1: a new job. A new job's retrieval snapshot is captured before it is started and
 * travels in its input (spec 02: captured at creation); unknown source ids refuse the request.
 * When the artifacts service does not answer in time, the job is started all the same, without a
 * snapshot but with the request's time (`requested_at`, PostgreSQL's clock): its workflow captures the snapshot as its
 * first step as of that time, so it holds what a capture at creation would have held. The request
 * is accepted durably (the `StartRun` is in JetStream) instead of failing for a slow peer.
 */
@Injectable()
export class CreateArtifactJobHandler {
  constructor(
    private readonly submitter: RunSubmitter,
    private readonly snapshots: SnapshotCapture,
    private readonly clock: DatabaseClock,
  ) {}

  async execute(command: CreateArtifactJobCommand): Promise<CreatedArtifactJob | RefusedArtifactJob> {
    const sourceIds = sortedSourceIds(command.sourceIds);
    const fingerprint = artifactFingerprint(command.userId, command.notebookId, command.artifactType, sourceIds, command.options);
    const { submitter } = this;
    for (let sequence = 1; sequence <= MAX_SEQUENCE; sequence++) {
      const key = artifactJobKey(fingerprint, sequence);
      const { run: job, existing: run } = await submitter.lookup(ARTIFACT_JOB_WORKFLOW, command.userId, key);
      const { runId } = job;
      if (run !== undefined && run.terminal) continue;
      if (run !== undefined) return { kind: 'created', jobId: runId, status: run.state, existing: true, fingerprint, sequence };
      // Taken before the capture is asked for: a deferred capture is as of this moment (spec 02: at
      // creation), on the clock the artifacts service's rows are stamped by (PostgreSQL's).
      const requestedAt = await this.clock.now();
      const captured = await this.snapshots.capture({ jobId: runId, userId: command.userId, notebookId: command.notebookId, sourceIds, query: command.content });
      if (captured.kind === 'unknown_sources' || captured.kind === 'failed') return { kind: 'refused', snapshot: captured };
      const input: ArtifactJobInput = artifactJobInput.parse({
        notebook_id: command.notebookId,
        artifact_type: command.artifactType,
        content: command.content,
        source_ids: sourceIds,
        options: command.options,
        fingerprint,
        sequence,
        intent: { router: 'rules', reason: command.intentReason },
        ...(captured.kind === 'captured' ? { snapshot: captured.snapshot } : { requested_at: requestedAt }),
      });
      await submitter.submit({ run: job, input });
      const snapshot = captured.kind === 'captured' ? 'captured' : 'deferred';
      return { kind: 'created', jobId: runId, status: 'pending', existing: false, fingerprint, sequence, snapshot };
    }
    throw new Error(`fingerprint ${fingerprint} has more than ${MAX_SEQUENCE} jobs`);
  }
}
