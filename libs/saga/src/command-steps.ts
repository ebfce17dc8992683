import type { AnyMessageDefinition, MessageData } from '@openpaw/contracts';
import type { Effect, JsonObject, RunSnapshot, SagaInput, StepLogEntry } from './definition.js';
import { commandIdFor } from './engine-ids.js';
import { stepTimeoutInputName, stepTimerName } from './step-timers.js';

/** Exponential backoff between the tries of a step. */
export interface Backoff {
  /** Delay before the first retry. */
  readonly baseMs: number;
  /** Each further retry waits this many times longer. */
  readonly factor: number;
  readonly maxMs: number;
}

/**
 * THE step idiom of every workflow (see README.md): a command step (ingest, retrieve, register,
 * generate, ...), tried one or more times.
 * Each try is its own command (key `<step>:<n>`, so its own id and JetStream msgID: a retry is never
 * dropped as a duplicate) with a step timeout; between tries the run waits on a backoff timer.
 * Replies are matched to the step by the `commandId` they carry (the id of the command they answer):
 * a reply to any try of the current step counts, anything else (another step, an earlier attempt of
 * the run) is stale.
 */
export interface StepProgress<N extends string = string> {
  readonly name: N;
  /** Tries sent so far; the latest is try number `tries`. */
  readonly tries: number;
  /** Waiting for the latest try's reply, or for the backoff timer before the next try. */
  readonly waiting: 'reply' | 'backoff';
}

export function firstTry<N extends string>(name: N): StepProgress<N> {
  return { name, tries: 1, waiting: 'reply' };
}

export function nextTry<N extends string>(step: StepProgress<N>): StepProgress<N> {
  return { name: step.name, tries: step.tries + 1, waiting: 'reply' };
}

export function tryKey(name: string, tryNo: number): string {
  return `${name}:${tryNo}`;
}

type RunIdentity = Pick<RunSnapshot, 'id' | 'attemptNo'>;

/** Is `commandId` the id of some try of `name`, the step in progress, in this attempt of the run? */
export function isReplyTo(run: RunIdentity, step: StepProgress | null, name: string, commandId: string): boolean {
  if (step?.name !== name) return false;
  for (let n = 1; n <= step.tries; n += 1) if (commandIdFor(run.id, run.attemptNo, tryKey(name, n)) === commandId) return true;
  return false;
}

/** Is `commandId` the latest try of `name`, whose reply the run is waiting for? */
export function isReplyToLatest(run: RunIdentity, step: StepProgress | null, name: string, commandId: string): boolean {
  return step?.name === name && step.waiting === 'reply' && commandIdFor(run.id, run.attemptNo, tryKey(name, step.tries)) === commandId;
}

/** The command of the step's latest try, with its step timeout (no resends: the next try is a retry). */
export function sendTry<M extends AnyMessageDefinition>(
  message: M,
  data: MessageData<M>,
  step: StepProgress,
  timeoutMs: number,
  options: { readonly timeoutFrom?: 'pickup' | 'send' } = {},
): Effect {
  const from = options.timeoutFrom === 'send' ? { from: 'send' as const } : {};
  return { type: 'send', message, data, key: tryKey(step.name, step.tries), timeout: { afterMs: timeoutMs, maxResends: 0, ...from } };
}

/**
 * A try answered with a failure, so its step timeout is moot: clear the engine's timer for it (named
 * `resend:<key>`; libs/saga clears these itself only when the state changes). Were the name ever to
 * drift, the stale timeout would still be ignored (isStepTimeout), only logged.
 */
export function clearStepTimeout(step: StepProgress): Effect {
  return { type: 'clearTimer', name: stepTimerName(tryKey(step.name, step.tries)) };
}

/** The engine's `timeout:<key>` input for the latest try, while its reply is awaited. */
export function isStepTimeout(input: SagaInput, step: StepProgress): boolean {
  return input.kind === 'timer' && step.waiting === 'reply' && input.name === stepTimeoutInputName(tryKey(step.name, step.tries));
}

export function retryTimerName(name: string): string {
  return `retry:${name}`;
}

/** Delay before retry number `retryNo` (1-based): baseMs × factor^(retryNo − 1), at most maxMs. */
export function backoffDelay(backoff: Backoff, retryNo: number): number {
  return Math.min(backoff.maxMs, Math.round(backoff.baseMs * backoff.factor ** (retryNo - 1)));
}

/** Retries used so far: every try after the first. */
export function retriesUsed(step: StepProgress): number {
  return step.tries - 1;
}

export interface ScheduledRetry<N extends string> {
  readonly step: StepProgress<N>;
  readonly effects: readonly Effect[];
  readonly log: StepLogEntry;
}

/** The step-log row of a scheduled retry (its payload: step, failed_try, retry, backoff_ms, reason). */
export const RETRY_SCHEDULED_STEP = 'retry_scheduled';

/** A retry a decision scheduled, as the run's public event tells it. */
export interface RetryScheduled {
  readonly step: string;
  readonly failedTry: number;
  readonly nextTry: number;
  readonly nextTryAt: string;
  readonly reason: string;
}

/**
 * The retry among a decision's log rows (the `scheduleRetry` row), with the time its backoff ends:
 * what the engine publishes with the run's change, so that readers of the run's events (the gateway)
 * can show the next try and the last error without reading the coordinator's step log.
 */
export function retryScheduledIn(logs: readonly StepLogEntry[], now: Date): RetryScheduled | undefined {
  const payload = logs.find((entry) => entry.step === RETRY_SCHEDULED_STEP)?.payload;
  if (payload === undefined) return undefined;
  const { step, failed_try: failedTry, backoff_ms: backoffMs, reason } = payload;
  if (typeof step !== 'string' || typeof failedTry !== 'number' || typeof backoffMs !== 'number') return undefined;
  return { step, failedTry, nextTry: failedTry + 1, nextTryAt: new Date(now.getTime() + backoffMs).toISOString(), reason: typeof reason === 'string' ? reason : 'unknown' };
}

/** Waits `backoffDelay(backoff, retryNo)` before the next try; `reason` says why (timeout, a retryable error). */
export function scheduleRetry<N extends string>(run: RunIdentity, step: StepProgress<N>, backoff: Backoff, reason: string): ScheduledRetry<N> {
  const retryNo = step.tries;
  const delayMs = backoffDelay(backoff, retryNo);
  const payload: JsonObject = { step: step.name, tries: step.tries, attempt_no: run.attemptNo };
  return {
    step: { ...step, waiting: 'backoff' },
    effects: [{ type: 'setTimer', name: retryTimerName(step.name), afterMs: delayMs, payload }],
    log: { step: RETRY_SCHEDULED_STEP, payload: { step: step.name, failed_try: step.tries, retry: retryNo, backoff_ms: delayMs, reason } },
  };
}

/** The backoff timer of the step in progress, in this attempt of the run, has fired. */
export function isRetryDue(run: RunIdentity, input: SagaInput, step: StepProgress): boolean {
  return (
    input.kind === 'timer' &&
    step.waiting === 'backoff' &&
    input.name === retryTimerName(step.name) &&
    input.payload['tries'] === step.tries &&
    input.payload['attempt_no'] === run.attemptNo
  );
}

/** When a step completes while its backoff timer is pending (a late reply), the timer goes too. */
export function clearPendingRetry(step: StepProgress | null): Effect[] {
  return step?.waiting === 'backoff' ? [{ type: 'clearTimer', name: retryTimerName(step.name) }] : [];
}
