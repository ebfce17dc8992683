import { Injectable } from '@nestjs/common';
import { ARTIFACT_JOB_WORKFLOW, type ArtifactJobInput, artifactJobInput, type ArtifactOptions, type ArtifactType } from '@openpaw/contracts';
import { RunSubmitter } from '../../runs/submit/run-submitter.js';
import { type ArtifactJobKey, ArtifactJobKeys, artifactRequestDigest } from './artifact-job-keys.js';
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
  /** The client's `Idempotency-Key`: the same key (per user) is the same job, also after it ended. */
  readonly idempotencyKey?: string;
}

export interface CreatedArtifactJob {
  readonly kind: 'created';
  readonly jobId: string;
  /** The job's state: `pending` for a new job, the current state of an active one. */
  readonly status: string;
  /** True when an active job with the same fingerprint was returned as it is. */
  readonly existing: boolean;
  /** The existing job has ended (only a repeated Idempotency-Key returns an ended job). */
  readonly ended?: true;
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

/** The key was first used with another request (`job_id`: the job it names); nothing was started. */
export interface ReusedArtifactJobKey {
  readonly kind: 'key_reused';
  readonly jobId: string;
}

/** The key's job is no longer kept (its run was removed); nothing was started. */
export interface ForgottenArtifactJobKey {
  readonly kind: 'key_forgotten';
  readonly jobId: string;
}

export type ArtifactJobOutcome = CreatedArtifactJob | RefusedArtifactJob | ReusedArtifactJobKey | ForgottenArtifactJobKey;

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
 * With an `Idempotency-Key`, the job it names is recorded (`ArtifactJobKeys`) before the `StartRun` is
 * sent, and a repeat is that job whatever its state: a client retrying after a 503 or a timeout never
 * starts job n + 1 because job n ended meanwhile (issue 27). A repeat whose job was never projected
 * sends its `StartRun` again (the same message id: a duplicate is dropped).
 */
@Injectable()
export class CreateArtifactJobHandler {
  constructor(
    private readonly submitter: RunSubmitter,
    private readonly snapshots: SnapshotCapture,
    private readonly clock: DatabaseClock,
    private readonly keys: ArtifactJobKeys,
  ) {}

  async execute(command: CreateArtifactJobCommand): Promise<ArtifactJobOutcome> {
    const sourceIds = sortedSourceIds(command.sourceIds);
    const fingerprint = artifactFingerprint(command.userId, command.notebookId, command.artifactType, sourceIds, command.options);
    const requestDigest = artifactRequestDigest(fingerprint, command.content);
    const { idempotencyKey } = command;
    if (idempotencyKey !== undefined) {
      const recorded = await this.keys.find(command.userId, idempotencyKey);
      if (recorded !== undefined) return this.repeat(command, fingerprint, requestDigest, recorded);
    }
    // The key's record, when the request has one: the record that stands afterwards decides (a concurrent repeat may have won).
    const claim = async (key: ArtifactJobKey): Promise<ArtifactJobKey | undefined> =>
      idempotencyKey === undefined ? undefined : this.keys.claim(command.userId, idempotencyKey, key);
    const names = (standing: ArtifactJobKey, runId: string): boolean => standing.jobId === runId && standing.requestDigest === requestDigest;
    const { submitter } = this;
    for (let sequence = 1; sequence <= MAX_SEQUENCE; sequence++) {
      const key = artifactJobKey(fingerprint, sequence);
      const { run: job, existing: run } = await submitter.lookup(ARTIFACT_JOB_WORKFLOW, command.userId, key);
      const { runId } = job;
      if (run !== undefined && run.terminal) continue;
      if (run !== undefined) {
        const standing = await claim({ jobId: runId, sequence, requestDigest });
        if (standing !== undefined && !names(standing, runId)) return this.repeat(command, fingerprint, requestDigest, standing);
        return { kind: 'created', jobId: runId, status: run.state, existing: true, fingerprint, sequence };
      }
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
      const standing = await claim({ jobId: runId, sequence, requestDigest, startInput: input });
      if (standing !== undefined && !names(standing, runId)) return this.repeat(command, fingerprint, requestDigest, standing);
      // A concurrent request with the key recorded first: its input is the one a repeat would send again.
      await submitter.submit({ run: job, input: standing?.startInput ?? input });
      const snapshot = captured.kind === 'captured' ? 'captured' : 'deferred';
      return { kind: 'created', jobId: runId, status: 'pending', existing: false, fingerprint, sequence, snapshot };
    }
    throw new Error(`fingerprint ${fingerprint} has more than ${MAX_SEQUENCE} jobs`);
  }

  /**
   * A request whose Idempotency-Key names a job already: that job as it is now, answered like the first
   * request was; its `StartRun` sent again when the projection does not know it yet (the gateway may have
   * stopped between recording the key and sending it). Another request under the same key is refused.
   */
  private async repeat(command: CreateArtifactJobCommand, fingerprint: string, requestDigest: string, recorded: ArtifactJobKey): Promise<ArtifactJobOutcome> {
    if (recorded.requestDigest !== requestDigest) return { kind: 'key_reused', jobId: recorded.jobId };
    const { sequence } = recorded;
    const { run: job, existing: run } = await this.submitter.lookup(ARTIFACT_JOB_WORKFLOW, command.userId, artifactJobKey(fingerprint, sequence));
    if (job.runId !== recorded.jobId) throw new Error(`the artifact job key names job ${recorded.jobId}, but its request derives ${job.runId}`);
    if (run !== undefined) return { kind: 'created', jobId: job.runId, status: run.state, existing: true, ...(run.terminal ? { ended: true } : {}), fingerprint, sequence };
    if (recorded.startInput === undefined) return { kind: 'key_forgotten', jobId: recorded.jobId };
    await this.submitter.submit({ run: job, input: recorded.startInput });
    const snapshot = recorded.startInput['snapshot'] === undefined ? 'deferred' : 'captured';
    return { kind: 'created', jobId: job.runId, status: 'pending', existing: false, fingerprint, sequence, snapshot };
  }
}
