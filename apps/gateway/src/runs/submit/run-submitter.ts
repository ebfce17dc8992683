import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, runIdFor, StartRun } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { RunEventBus } from '../../events/run-event-bus.js';
import { projectionOf, type RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import { type CommandPublisher, COMMAND_PUBLISHER, GATEWAY_SOURCE } from '../ports.js';

/**
 * A submission's run, named once: the run id and the user-scoped idempotency key it derives from.
 * Only `RunSubmitter.lookup` makes one, so every route and `StartRun` agree on both.
 */
export interface SubmissionRun {
  readonly workflowType: string;
  readonly userId: string;
  readonly runId: string;
  /** The client's key scoped to its user (what `StartRun` carries). */
  readonly idempotencyKey: string;
}

export interface LookedUpRun {
  readonly run: SubmissionRun;
  /** The run as the projection knows it, when this key was used before (and reported). */
  readonly existing?: RunProjection;
}

export interface RunSubmission {
  /** From `lookup`: the run this submission starts (or re-attempts). */
  readonly run: SubmissionRun;
  /** The workflow's input, validated by the submission route with the workflow's own schema. */
  readonly input: Record<string, unknown>;
  readonly parentRunId?: string;
  /**
   * Set to re-attempt a run that ended in failure: a new attempt number gives `StartRun` a new
   * message id (the same one would be dropped as a duplicate). Omit for a first submission.
   */
  readonly attempt?: number;
}

export interface AwaitRunOptions {
  readonly timeoutMs: number;
  /** Default: the run is terminal. */
  readonly until?: (run: RunProjection) => boolean;
  readonly signal?: AbortSignal;
}

/** Idempotency keys are scoped to their user: two users' equal keys never meet on one run. */
export function scopedIdempotencyKey(userId: string, idempotencyKey: string): string {
  return `${createHash('sha256').update(userId).digest('base64url').slice(0, 22)}:${idempotencyKey}`;
}

/**
 * The extension point for workflow submission routes (`POST /problems`, ...): `lookup` derives the
 * run id from (user, idempotency key) and reads the projection once; the route decides from what it
 * found and `submit`s that run (`StartRun`); `awaitRun` optionally waits for it to get somewhere.
 * A duplicate submission lands on the same run id and the same `StartRun` message id, so
 * JetStream and the coordinator drop it; the route can answer from the projection without asking anyone.
 */
@Injectable()
export class RunSubmitter {
  constructor(
    private readonly runs: RunProjectionStore,
    private readonly bus: RunEventBus,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
  ) {}

  /** The run a submission of `idempotencyKey` by `userId` gets, whether or not it exists yet. */
  runOf(workflowType: string, userId: string, idempotencyKey: string): SubmissionRun {
    const scoped = scopedIdempotencyKey(userId, idempotencyKey);
    return { workflowType, userId, runId: runIdFor(workflowType, scoped), idempotencyKey: scoped };
  }

  /** The run of this submission and what the projection knows of it (only the user's own run). */
  async lookup(workflowType: string, userId: string, idempotencyKey: string): Promise<LookedUpRun> {
    const run = this.runOf(workflowType, userId, idempotencyKey);
    const existing = await this.runs.findForUser(run.runId, userId);
    return existing === undefined ? { run } : { run, existing };
  }

  /** The message id of the `StartRun` of `attempt` (default 1) of a run: what an `InputRefused` names. */
  startMessageIdOf(runId: string, attempt?: number): string {
    return deterministicUuid('StartRun', runId, String(attempt ?? 1));
  }

  /** Publishes the `StartRun` of the submission's run (a duplicate is dropped by JetStream and the coordinator). */
  async submit(submission: RunSubmission): Promise<void> {
    const { run } = submission;
    const traceparent = currentTraceparent();
    await this.publisher.publish(
      StartRun,
      {
        runId: run.runId,
        workflowType: run.workflowType,
        idempotencyKey: run.idempotencyKey,
        userId: run.userId,
        input: submission.input,
        ...(submission.parentRunId === undefined ? {} : { parentRunId: submission.parentRunId }),
      },
      {
        id: this.startMessageIdOf(run.runId, submission.attempt),
        source: GATEWAY_SOURCE,
        correlationId: run.runId,
        subject: run.runId,
        userId: run.userId,
        ...(traceparent === undefined ? {} : { traceparent }),
      },
    );
  }

  /**
   * Follows the run's live changes until it satisfies `until` (default: terminal) or `timeoutMs` passes,
   * without reading the projection: for a route that starts following before it publishes the run's
   * `StartRun`, so no change can slip past. `awaitRun` finishes it.
   */
  followRun(runId: string, options: AwaitRunOptions): FollowedRun {
    const until = options.until ?? ((run: RunProjection) => run.terminal);
    let latest: RunProjection | undefined;
    const consider = (candidate: RunProjection): boolean => {
      if (latest === undefined || candidate.version > latest.version) {
        latest = latest === undefined ? candidate : { ...candidate, createdAt: latest.createdAt };
      }
      return until(latest);
    };
    const waiting = this.bus.waitFor(
      runId,
      (event) => (event.kind === 'stateChanged' && consider(projectionOf(event.data)) ? true : undefined),
      { timeoutMs: options.timeoutMs, ...(options.signal === undefined ? {} : { signal: options.signal }) },
    );
    return { consider, latest: () => latest, reached: waiting.result.then((value) => value === true), cancel: () => waiting.cancel() };
  }

  /**
   * Waits until the run satisfies `until` (default: terminal) and returns it, or returns the latest
   * known state (possibly `undefined`) after `timeoutMs`. Reads the projection, then follows live
   * events; given a run `followed` since before its `StartRun` was published, only follows.
   */
  async awaitRun(runId: string, options: AwaitRunOptions & { readonly followed?: FollowedRun }): Promise<{ readonly run?: RunProjection; readonly reached: boolean }> {
    const following = options.followed ?? this.followRun(runId, options);
    const result = (reached: boolean): { readonly run?: RunProjection; readonly reached: boolean } => {
      const run = following.latest();
      return run === undefined ? { reached } : { run, reached };
    };
    if (options.followed === undefined) {
      const stored = await this.runs.find(runId);
      if (stored !== undefined && following.consider(stored)) {
        following.cancel();
        return result(true);
      }
    }
    if (await following.reached) return result(true);
    const final = await this.runs.find(runId);
    return result(final !== undefined && following.consider(final));
  }
}

/** A run followed live (`RunSubmitter.followRun`). */
export interface FollowedRun {
  /** Takes a state of the run into account; true when it satisfies the wait. */
  readonly consider: (run: RunProjection) => boolean;
  /** The newest state seen. */
  readonly latest: () => RunProjection | undefined;
  /** True once a live change satisfied the wait; false at its timeout, abort or cancel. */
  readonly reached: Promise<boolean>;
  readonly cancel: () => void;
}
