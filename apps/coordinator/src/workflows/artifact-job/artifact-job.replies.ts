import { commandIdFor, isReplyTo, isReplyToLatest, isRetryDue, isStepTimeout, retryTimerName, type RunSnapshot, stepTimeoutInputName, type TimerInput } from '@openpaw/saga';
import type { Awaiting } from './artifact-job.data.js';

/**
 * Which replies and timers belong to the step a job waits for: libs/saga's step idiom
 * (command-steps), plus the ids of a step in flight when its run was stored by the previous
 * definition (`legacy`, see artifact-job.legacy.ts). Nothing else is matched.
 */

type RunIdentity = Pick<RunSnapshot, 'id' | 'attemptNo'>;

/** A reply from any try of the step: its result counts, whichever try produced it. */
export function answersStep(run: RunIdentity, awaiting: Awaiting<string>, commandId: string): boolean {
  const { step, legacy } = awaiting;
  if (isReplyTo(run, step, step.name, commandId)) return true;
  return legacy?.firstTryKey !== undefined && commandIdFor(run.id, run.attemptNo, legacy.firstTryKey) === commandId;
}

/** A reply from the latest try while its answer is awaited (a failure or progress of an earlier try is stale). */
export function answersLatestTry(run: RunIdentity, awaiting: Awaiting<string>, commandId: string): boolean {
  const { step } = awaiting;
  if (isReplyToLatest(run, step, step.name, commandId)) return true;
  const legacyKey = awaitedLegacyKey(awaiting);
  return legacyKey !== undefined && commandIdFor(run.id, run.attemptNo, legacyKey) === commandId;
}

/** The latest try timed out (the engine's `timeout:<key>` input). */
export function isTimeoutOf(awaiting: Awaiting<string>, timer: TimerInput): boolean {
  if (isStepTimeout({ kind: 'timer', ...timer }, awaiting.step)) return true;
  const legacyKey = awaitedLegacyKey(awaiting);
  return legacyKey !== undefined && timer.name === stepTimeoutInputName(legacyKey);
}

/** The backoff before the next try is over. */
export function isBackoffOver(run: RunIdentity, awaiting: Awaiting<string>, timer: TimerInput): boolean {
  const { step, legacy } = awaiting;
  if (isRetryDue(run, { kind: 'timer', ...timer }, step)) return true;
  // The previous definition's backoff timer named the step kind and carried the try it starts.
  return step.waiting === 'backoff' && legacy?.backoffTimer !== undefined && timer.name === legacy.backoffTimer && timer.payload['tries'] === step.tries + 1;
}

/** The previous definition's name of a step kind's backoff timer (`retry:plan`), for the legacy reader. */
export function legacyBackoffTimer(kind: string): string {
  return retryTimerName(kind);
}

/** The legacy key of the first try, while that try's answer is awaited. */
function awaitedLegacyKey(awaiting: Awaiting<string>): string | undefined {
  const key = awaiting.legacy?.firstTryKey;
  return key !== undefined && awaiting.step.tries === 1 && awaiting.step.waiting === 'reply' ? key : undefined;
}
