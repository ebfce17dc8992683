import { isRetryDue, isStepTimeout, nextTry, onTimer, retriesUsed, retryTimerName, RUN_DEADLINE_TIMER, type Row, scheduleRetry, stepTimeoutInputName, type StepProgress } from '@openpaw/saga';
import { type Backoff, RETRIES, type WorkflowTimings } from '../shared/timings.js';
import type { RetrieveOrGenerateCommands } from './retrieve-or-generate.commands.js';
import type { RetrieveOrGenerateData, RetrieveOrGenerateErrorCode, StepName } from './retrieve-or-generate.data.js';
import { ignore, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from './retrieve-or-generate.outcomes.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

type S = RetrieveOrGenerateState;
type D = RetrieveOrGenerateData;

/** The rows of a command step's own timers (timeout, retry due) and the run's deadline. */
export function retrieveOrGenerateStepRows(timings: WorkflowTimings, commands: RetrieveOrGenerateCommands, outcomes: RetrieveOrGenerateOutcomes) {
  const { commandFor } = commands;
  const { fail, succeedNew } = outcomes;

  /** Spec retry table: INGESTING retry_max (1 s, 4 s, 16 s), RETRIEVING 3, REGISTERING 5; INDEXING defers. */
  const onStepTimeout = (run: Run, step: StepProgress<StepName>): RogDecision => {
    const retryOr = (maxRetries: number, backoff: Backoff, errorCode: RetrieveOrGenerateErrorCode): RogDecision => {
      const stepName = `${step.name}_timed_out`;
      if (retriesUsed(step) < maxRetries) {
        const retry = scheduleRetry(run, step, backoff, 'timeout');
        return { outcome: 'stay', data: { ...run.data, step: retry.step }, step: stepName, logs: [retry.log], effects: retry.effects };
      }
      return fail(run, run.data, errorCode, `no reply after ${step.tries} tries`, stepName);
    };
    switch (step.name) {
      case 'ingest':
        return retryOr(run.data.policy.retry_max, timings.ingest.backoff, 'ingest_timeout');
      case 'retrieve':
        return retryOr(RETRIES.retrieve, timings.retrieve.backoff, 'retrieval_timeout');
      case 'register':
        return retryOr(RETRIES.register, timings.register.backoff, 'registration_timeout');
      case 'index':
        // Index failure is non-fatal: the asset is served now and indexed by a background run.
        return succeedNew(run, true, 'index_timed_out', [
          { step: 'index_deferred', payload: { reason: 'timeout', timeout_ms: timings.index.timeoutMs, asset_version_id: run.data.assetVersionCreated?.assetVersionId ?? null } },
        ]);
    }
  };

  /** The step's own timers: its latest try timed out (from pickup), or its backoff is over. */
  const stepTimeoutRow = (name: StepName, to: readonly S[]): Row<S, D> =>
    onTimer<S, D>(stepTimeoutInputName(name), to, (run, timer) => {
      const step = run.data.step;
      if (step?.name !== name || !isStepTimeout({ kind: 'timer', ...timer }, step)) return ignore('stale step timeout');
      return onStepTimeout(run, step);
    });
  const retryDueRow = (name: StepName): Row<S, D> =>
    onTimer<S, D>(retryTimerName(name), [], (run, timer) => {
      const step = run.data.step;
      if (step?.name !== name || !isRetryDue(run, { kind: 'timer', ...timer }, step)) return ignore('stale retry timer');
      const next = nextTry(step);
      const data: D = { ...run.data, step: next };
      return { outcome: 'stay', data, step: `${step.name}_retried`, effects: [commandFor(run, data, next)] };
    });
  /** The run's deadline (flow control): whatever was made so far stays (a generated solution, in the run's data and its blob). */
  const deadlineRow = onTimer<S, D>(RUN_DEADLINE_TIMER, ['FAILED'], (run) => {
    const kept = run.data.solution === null ? '' : `; the generated solution is kept (${run.data.solution.storageKey})`;
    return fail(run, run.data, 'deadline_exceeded', `run deadline of ${run.data.policy.run_deadline_ms} ms passed in ${run.state}${kept}`, 'deadline_exceeded');
  });

  return { stepTimeoutRow, retryDueRow, deadlineRow };
}
