import { DiscoverCandidates, type MessageData, RunEnded, SelectNextExpansion, VerifyEdge, VISUAL_DEGREES, VisualStepFailed, visualWorldInfo } from '@openpaw/contracts';
import {
  clearStepTimeout,
  type DecideContext,
  type Effect,
  isReplyToLatest,
  isRetryDue,
  isStepTimeout,
  nextTry,
  onEvent,
  onTimer,
  retriesUsed,
  retryTimerName,
  type Row,
  RUN_DEADLINE_TIMER,
  type SagaInput,
  scheduleRetry,
  sendTry,
  stepTimeoutInputName,
} from '@openpaw/saga';
import { charge, hopsVerified, remaining, type StepKind, type VisualDegreesData, type VisualDegreesState, type VisualDegreesTimings } from './visual-degrees.data.js';
import { fail, ignore, type Run, type VisualDecision } from './visual-degrees.outcomes.js';
import { redactPerson, status, withEvents } from './visual-degrees.view.js';

/**
 * What every working state shares, beside the table's own rows: a step failing, timing out and backing
 * off, the runtime budget, the guard around every decision (the world learned, a throw ended as
 * `error`, photos of people taken down redacted, `RunEnded` on FAILED) and the owner's cancel.
 */

type S = VisualDegreesState;
type D = VisualDegreesData;

/** Rows every working state has: its step failing, timing out, backing off; the runtime budget. */
export function stepRows(timings: VisualDegreesTimings, kind: StepKind): Row<S, D>[] {
  const retryOrFail = (run: Run, data: D, retryable: boolean, why: string, cause: string, stepName: string, now: Date, clearTimeout: boolean): VisualDecision => {
    const step = data.step;
    if (step === null) return ignore('no step in flight');
    if (retryable && retriesUsed(step) < timings.retries) {
      const retry = scheduleRetry(run, step, timings.backoff, why);
      return { outcome: 'stay', data: { ...data, step: retry.step }, step: stepName, logs: [retry.log], effects: clearTimeout ? [clearStepTimeout(step), ...retry.effects] : retry.effects };
    }
    return fail(data, 'step_failed', `${step.name}: ${why} (after ${step.tries} tries)`, now, stepName, { cause });
  };
  return [
    onEvent(VisualStepFailed, ['FAILED'], (run, { data: d }, { now }) => {
      if (run.data.step === null || !isReplyToLatest(run, run.data.step, run.data.step.name, d.commandId)) return ignore('stale VisualStepFailed');
      return retryOrFail(run, charge(run.data, d.usage), d.retryable, `${d.errorCode}: ${d.detail}`, d.errorCode, `${kind}_failed`, now, true);
    }),
    onTimer(stepTimeoutInputName(kind), ['FAILED'], (run, timer, { now }) => {
      if (run.data.step === null || !isStepTimeout({ kind: 'timer', ...timer }, run.data.step)) return ignore('stale step timeout');
      return retryOrFail(run, run.data, true, `no reply within ${timings.stepTimeoutMs} ms`, 'step_timed_out', `${kind}_timed_out`, now, false);
    }),
    onTimer(retryTimerName(kind), [], (run, timer) => {
      const { step, command } = run.data;
      if (step === null || command === null || !isRetryDue(run, { kind: 'timer', ...timer }, step)) return ignore('stale retry timer');
      const next = nextTry(step);
      const message = [VerifyEdge, DiscoverCandidates, SelectNextExpansion].find((m) => m.subject === command.subject);
      if (message === undefined) return { outcome: 'refuse', reason: `no command to retry for ${step.name}` };
      // The same command, with what the budgets allow now (a failed try's usage has been charged).
      const left = remaining(run.data);
      const data = 'budget' in command.data ? { ...command.data, budget: { searchCalls: left.searchCalls, recognitionCalls: left.recognitionCalls } } : command.data;
      return { outcome: 'stay', data: { ...run.data, step: next }, step: `${kind}_retried`, effects: [sendTry(message, data as MessageData<typeof message>, next, timings.stepTimeoutMs)] };
    }),
    onTimer(RUN_DEADLINE_TIMER, ['FAILED'], (run, _timer, { now }) => fail(run.data, 'runtime_budget_exhausted', `runtime budget of ${run.data.budgets.maxRuntimeMs} ms spent in ${run.state}`, now, 'runtime_budget_exhausted')),
  ];
}

/**
 * What wraps every decision of the table: the world the service searches is learned from the first
 * reply that tells it (so `final` and `no_path` can say "local demo world of N invented people"); a
 * decision that throws ends the run as an `error` with its reason (not a refused input that would wait
 * for the runtime budget and end as `no_path`); and a run that ends in FAILED, or is cancelled, publishes
 * `RunEnded`, so the service aborts the step it may still be running for it.
 */
export function decideGuarded(run: Run, input: SagaInput, context: DecideContext, decide: (run: Run, input: SagaInput, context: DecideContext) => VisualDecision): VisualDecision {
  const known = { ...run, data: withWorldOf(run.data, input, context.now) };
  let decision: VisualDecision;
  try {
    decision = decide(known, input, context);
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    decision = fail(known.data, 'unexpected_error', reason.slice(0, 300), context.now, 'unexpected_error', { cause: reason.slice(0, 300) });
  }
  decision = withoutTakenDown(decision);
  if (decision.outcome !== 'transition' || decision.to !== 'FAILED') return decision;
  return { ...decision, effects: [...(decision.effects ?? []), runEnded(run, 'FAILED', decision.data.failure?.reason ?? 'failed')] };
}

/** A decision's data with every photo of a person taken down while the run went on redacted (a reply made before the service knew). */
function withoutTakenDown(decision: VisualDecision): VisualDecision {
  if (decision.outcome !== 'transition' && decision.outcome !== 'stay') return decision;
  let data = decision.data;
  for (const celebrityId of data.takenDown ?? []) data = redactPerson(data, celebrityId) ?? data;
  return data === decision.data ? decision : { ...decision, data };
}

/** An owner's cancel: the `cancelled` stream event, and `RunEnded` for the step in flight. */
export function cancelled(run: Run, reason: string | undefined, now: Date): { readonly data: VisualDegreesData; readonly effects: readonly Effect[] } {
  const data = withEvents(run.data, now, {
    type: 'cancelled',
    data: { message: 'The investigation was cancelled.', reason: reason ?? null, hopDepth: hopsVerified(run.data), used: run.data.used },
  });
  return { data, effects: [runEnded(run, 'CANCELLED', 'cancelled')] };
}

function runEnded(run: Run, state: string, reason: string): Effect {
  const data: MessageData<typeof RunEnded> = { runId: run.id, workflowType: VISUAL_DEGREES, state, reason };
  return { type: 'publish', message: RunEnded, data, key: 'run-ended' };
}

/** The run's data with the world a reply names, the first time one does (a status event says it). */
function withWorldOf(data: VisualDegreesData, input: SagaInput, now: Date): VisualDegreesData {
  if (data.world !== undefined || input.kind !== 'event') return data;
  const parsed = visualWorldInfo.safeParse((input.envelope.data as { readonly world?: unknown } | null)?.world);
  if (!parsed.success) return data;
  return withEvents({ ...data, world: parsed.data }, now, status(`Searching the ${parsed.data.description} (seed ${parsed.data.seed}).`));
}
