import { isRetryDue, isStepTimeout, nextTry, onTimer, retriesUsed, retryTimerName, RUN_DEADLINE_TIMER, type Row, scheduleRetry, stepTimeoutInputName } from '@openpaw/saga';
import { type Backoff, RETRIES, type WorkflowTimings } from '../shared/timings.js';
import type { RetrieveOrGenerateCommands } from './retrieve-or-generate.commands.js';
import { type DataAt, isRunning, type RetrieveOrGenerateData, type RetrieveOrGenerateErrorCode, type StepData, type StepName } from './retrieve-or-generate.data.js';
import { ignore, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from './retrieve-or-generate.outcomes.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

type S = RetrieveOrGenerateState;
type D = RetrieveOrGenerateData;

/** The stage's data with its step moved on (`nextTry`, `scheduleRetry`: the same step, so the same name). */
function withStep<T extends StepData>(data: T, step: T['step']): T {
  return { ...data, step };
}

/** The stage waiting on step `name`, if the run is in it. */
function stepDataOf(data: D, name: StepName): StepData | undefined {
  return 'step' in data && data.step.name === name ? data : undefined;
}

/** The rows of a command step's own timers (timeout, retry due) and the run's deadline. */
export function retrieveOrGenerateStepRows(timings: WorkflowTimings, commands: RetrieveOrGenerateCommands, outcomes: RetrieveOrGenerateOutcomes) {
  const { commandFor } = commands;
  const { fail, succeedNew } = outcomes;

  /** Spec retry table: INGESTING retry_max (1 s, 4 s, 16 s), RETRIEVING 3, REGISTERING 5; INDEXING defers. */
  const onStepTimeout = (run: Run, data: StepData): RogDecision => {
    const { step } = data;
    const retryOr = (maxRetries: number, backoff: Backoff, errorCode: RetrieveOrGenerateErrorCode): RogDecision => {
      const stepName = `${step.name}_timed_out`;
      if (retriesUsed(step) < maxRetries) {
        const retry = scheduleRetry(run, step, backoff, 'timeout');
        return { outcome: 'stay', data: withStep(data, retry.step), step: stepName, logs: [retry.log], effects: retry.effects };
      }
      return fail(run, data, errorCode, `no reply after ${step.tries} tries`, stepName);
    };
    switch (data.stage) {
      case 'ingesting':
        return retryOr(data.policy.retry_max, timings.ingest.backoff, 'ingest_timeout');
      case 'searching':
        return retryOr(RETRIES.retrieve, timings.retrieve.backoff, 'retrieval_timeout');
      case 'registering':
        return retryOr(RETRIES.register, timings.register.backoff, 'registration_timeout');
      case 'indexing':
        // Index failure is non-fatal: the asset is served now and indexed by a background run.
        return indexDeferred(run, data);
    }
  };

  const indexDeferred = (run: Run, data: DataAt<'indexing'>): RogDecision =>
    succeedNew(run, data, true, 'index_timed_out', [
      { step: 'index_deferred', payload: { reason: 'timeout', timeout_ms: timings.index.timeoutMs, asset_version_id: data.assetVersionCreated.assetVersionId } },
    ]);

  /** The step's own timers: its latest try timed out (from pickup), or its backoff is over. */
  const stepTimeoutRow = (name: StepName, to: readonly S[]): Row<S, D> =>
    onTimer<S, D>(stepTimeoutInputName(name), to, (run, timer) => {
      const data = stepDataOf(run.data, name);
      if (data === undefined || !isStepTimeout({ kind: 'timer', ...timer }, data.step)) return ignore('stale step timeout');
      return onStepTimeout(run, data);
    });
  const retryDueRow = (name: StepName): Row<S, D> =>
    onTimer<S, D>(retryTimerName(name), [], (run, timer) => {
      const data = stepDataOf(run.data, name);
      if (data === undefined || !isRetryDue(run, { kind: 'timer', ...timer }, data.step)) return ignore('stale retry timer');
      const next = withStep(data, nextTry(data.step));
      return { outcome: 'stay', data: next, step: `${name}_retried`, effects: [commandFor(run, next)] };
    });
  /** The run's deadline (flow control): whatever was made so far stays (a generated solution, in the run's data and its blob). */
  const deadlineRow = onTimer<S, D>(RUN_DEADLINE_TIMER, ['FAILED'], (run) => {
    const data = run.data;
    if (!isRunning(data)) return ignore(`no deadline for a run ${data.stage}`);
    const kept = 'solution' in data ? `; the generated solution is kept (${data.solution.storageKey})` : '';
    return fail(run, data, 'deadline_exceeded', `run deadline of ${data.policy.run_deadline_ms} ms passed in ${run.state}${kept}`, 'deadline_exceeded');
  });

  return { stepTimeoutRow, retryDueRow, deadlineRow };
}
