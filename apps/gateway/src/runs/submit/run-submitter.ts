import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, runIdFor, StartRun } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { RunEventBus } from '../../events/run-event-bus.js';
import { projectionOf, type RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import { type CommandPublisher, COMMAND_PUBLISHER, GATEWAY_SOURCE } from '../ports.js';

export interface RunSubmission {
  readonly workflowType: string;
  /** The client's idempotency key (e.g. the `Idempotency-Key` header, or a content hash). */
  readonly idempotencyKey: string;
  readonly userId: string;
  /** The workflow's input, validated by the submission route with the workflow's own schema. */
  readonly input: Record<string, unknown>;
  readonly parentRunId?: string;
  /**
   * Set to re-attempt a run that ended in failure: a new attempt number gives `StartRun` a new
   * message id (the same one would be dropped as a duplicate). Omit for a first submission.
   */
  readonly attempt?: number;
}

export interface SubmittedRun {
  readonly runId: string;
  /** The run as the projection knew it before this submission, when the same key was used before. */
  readonly existing?: RunProjection;
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
 * The extension point for workflow submission routes (`POST /problems`, ...): derive the run id
 * from the idempotency key, publish `StartRun`, and optionally wait for the run to get somewhere.
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

  /** The run id a submission of `idempotencyKey` by `userId` gets. */
  runIdOf(workflowType: string, userId: string, idempotencyKey: string): string {
    return runIdFor(workflowType, scopedIdempotencyKey(userId, idempotencyKey));
  }

  /** The message id of the `StartRun` of `attempt` (default 1) of a run: what an `InputRefused` names. */
  startMessageIdOf(runId: string, attempt?: number): string {
    return deterministicUuid('StartRun', runId, String(attempt ?? 1));
  }

  async submit(submission: RunSubmission): Promise<SubmittedRun> {
    const idempotencyKey = scopedIdempotencyKey(submission.userId, submission.idempotencyKey);
    const runId = runIdFor(submission.workflowType, idempotencyKey);
    const existing = await this.runs.findForUser(runId, submission.userId);
    const traceparent = currentTraceparent();
    await this.publisher.publish(
      StartRun,
      {
        runId,
        workflowType: submission.workflowType,
        idempotencyKey,
        userId: submission.userId,
        input: submission.input,
        ...(submission.parentRunId === undefined ? {} : { parentRunId: submission.parentRunId }),
      },
      {
        id: this.startMessageIdOf(runId, submission.attempt),
        source: GATEWAY_SOURCE,
        correlationId: runId,
        subject: runId,
        userId: submission.userId,
        ...(traceparent === undefined ? {} : { traceparent }),
      },
    );
    return existing === undefined ? { runId } : { runId, existing };
  }

  /**
   * Waits until the run satisfies `until` (default: terminal) and returns it, or returns the latest
   * known state (possibly `undefined`) after `timeoutMs`. Reads the projection, then follows live events.
   */
  async awaitRun(runId: string, options: AwaitRunOptions): Promise<{ readonly run?: RunProjection; readonly reached: boolean }> {
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
    const stored = await this.runs.find(runId);
    if (stored !== undefined && consider(stored)) {
      waiting.cancel();
      return { run: latest, reached: true };
    }
    const reached = (await waiting.result) === true;
    if (!reached) {
      const final = await this.runs.find(runId);
      if (final !== undefined && consider(final)) return { run: latest, reached: true };
    }
    return latest === undefined ? { reached } : { run: latest, reached };
  }
}
