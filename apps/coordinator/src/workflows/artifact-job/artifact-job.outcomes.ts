import type { ArtifactPlan } from '@openpaw/contracts';
import { clearStepTimeout, type Decision, firstTry, type RunSnapshot, scheduleRetry, type StepLogEntry, type StepProgress } from '@openpaw/saga';
import { planArtifact } from './artifact-job.commands.js';
import {
  type RetriedData,
  retriedKindOf,
  type ArtifactJobData,
  type ArtifactJobState,
  type DataAt,
  factsOf,
  type JobFacts,
  MAX_VALIDATION_RETRIES,
  PHASE,
  planStep,
  PROGRESS,
  RETRY_TIMER,
  type Snapshot,
  workerChunks,
} from './artifact-job.data.js';
import type { ArtifactJobTimings } from './artifact-job.timings.js';
import * as trace from './artifact-job.trace.js';

/**
 * The decisions more than one row of the table reaches, each named by where it goes. The table
 * (artifact-job.definition.ts) lists every row's targets; these only build the data, trace and
 * commands of the move.
 */

export type Run = RunSnapshot<ArtifactJobState, ArtifactJobData>;
export type JobDecision = Decision<ArtifactJobState, ArtifactJobData>;

export const ignore = (reason: string): JobDecision => ({ outcome: 'ignore', reason });

/** The stage's data with its step moved on (`nextTry`, `scheduleRetry`: the same step, so the same name). */
export function withStep<T extends RetriedData>(data: T, step: StepProgress): T {
  return { ...data, step };
}

/** → planning: a worker takes the job (the first time, or the validation retry with the stored plan), with the snapshot's chunks. */
export function toPlanning(run: Run, facts: JobFacts, snapshot: Snapshot, plan: ArtifactPlan | undefined, timings: ArtifactJobTimings, logs: readonly StepLogEntry[]): JobDecision {
  const data: DataAt<'planning'> = {
    ...factsOf(facts),
    progress: PROGRESS.planning,
    stage: 'planning',
    snapshot,
    ...(plan === undefined ? {} : { plan }),
    step: firstTry(planStep(facts.generation)),
  };
  const chunks = workerChunks(data).length;
  return {
    outcome: 'transition',
    to: 'planning',
    data,
    step: 'planning_started',
    logs: [...logs, ...trace.workerFetched(run.id, data.request.artifact_type, data.retries, chunks, snapshot !== null)],
    effects: [planArtifact(run, data, timings)],
  };
}

/** → failed, keeping what the job had got to (its snapshot and plan show in the view). */
export function toFailed(run: Run, data: ArtifactJobData, reason: string, logs: readonly StepLogEntry[] = []): JobDecision {
  const failed: DataAt<'failed'> = {
    ...factsOf(data),
    ...('snapshot' in data ? { snapshot: data.snapshot } : {}),
    ...('plan' in data && data.plan !== undefined ? { plan: data.plan } : {}),
    stage: 'failed',
    error: reason,
  };
  return { outcome: 'transition', to: 'failed', data: failed, step: 'failed', logs: [...logs, trace.jobFailed(run.id, reason)] };
}

/**
 * The artifact is not valid (the validator said so, or the generated output missed the schema):
 * → pending, queued once for a retry with the same plan and snapshot (the rejected result is
 * dropped); the second time → failed with the validator's error.
 */
export function afterValidationFailure(
  run: Run,
  data: DataAt<'generating'> | DataAt<'validating'>,
  error: string,
  errors: readonly string[],
  timings: ArtifactJobTimings,
  logs: readonly StepLogEntry[] = [],
): JobDecision {
  const failedLine = trace.validationFailed(error, errors, data.generation);
  if (data.retries >= MAX_VALIDATION_RETRIES) {
    return toFailed(run, data, trace.validationFailedAfterRetries(data.retries, error), [...logs, failedLine]);
  }
  const retries = data.retries + 1;
  const queued: DataAt<'queued'> = {
    ...factsOf(data),
    retries,
    generation: data.generation + 1,
    progress: PROGRESS.pending,
    validationError: error,
    stage: 'queued',
    snapshot: data.snapshot,
    plan: data.plan,
  };
  return {
    outcome: 'transition',
    to: 'pending',
    data: queued,
    step: 'retry_queued',
    logs: [...logs, failedLine, ...trace.retryQueued(retries, MAX_VALIDATION_RETRIES, timings.retryDelayMs)],
    effects: [{ type: 'setTimer', name: RETRY_TIMER, afterMs: timings.retryDelayMs }],
  };
}

/**
 * A plan or generate try failed transiently (the model unavailable after the provider's own
 * retries), or a plan, generate or validate try timed out: the step again after a backoff, up to
 * `maxStepTries` tries (stays); then → failed. A validate try that timed out (its command or answer
 * on a node being failed over) is retried like the others: spec 02 fails a job for its content
 * ("Validation failed: Missing 'questions' field"), not for a slow step.
 */
export function retryOrFail(
  run: Run,
  data: RetriedData,
  reason: string,
  timings: ArtifactJobTimings,
  cause: 'failure reply' | 'timeout',
): JobDecision {
  const { step } = data;
  const kind = retriedKindOf(data);
  if (step.tries >= timings.maxStepTries) {
    return toFailed(run, data, reason, [trace.stepFailed(PHASE[kind], kind, step.tries, reason)]);
  }
  const retry = scheduleRetry(run, step, timings.stepBackoff, reason);
  // A failure reply makes the try's step timeout moot; a timeout has already fired it.
  const effects = cause === 'failure reply' ? [clearStepTimeout(step), ...retry.effects] : retry.effects;
  return {
    outcome: 'stay',
    data: withStep(data, retry.step),
    step: 'step_backoff',
    logs: [trace.retryScheduled(PHASE[kind], reason, step.tries + 1, timings.maxStepTries, { ...retry.log.payload, step: kind })],
    effects,
  };
}
