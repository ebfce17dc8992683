import { DiscoverCandidates, type MessageData, SelectNextExpansion, VerifyEdge, VisualStepFailed } from '@openpaw/contracts';
import {
  clearStepTimeout,
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
  scheduleRetry,
  sendTry,
  stepTimeoutInputName,
} from '@openpaw/saga';
import { charge, remaining } from './budgets.js';
import { fail, ignore, type Run, type VisualDecision } from './outcomes.js';
import type { VisualDegreesState, VisualDegreesTimings } from './visual-degrees.states.js';
import type { StepKind, VisualDegreesData } from './visual-degrees.model.js';

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
