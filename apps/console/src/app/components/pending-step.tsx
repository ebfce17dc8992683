import type { Run, RunTransition } from '../api/resources.js';
import { WORKFLOW_TABLES } from '../api/workflow-tables.js';
import { stateLabel } from '../workflows.js';

/** States named for a person's decision (spec 04's checkpoints, spec 05's gate). */
const HUMAN_GATE = /^awaiting_/i;

function elapsed(since: Date, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - since.getTime()) / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

/** How long until `at`, or that it is due (the coordinator's timer fires; the page hears of the try next). */
function until(at: Date, now: Date): string {
  return at.getTime() <= now.getTime() ? 'due now' : `in ${elapsed(now, at)}`;
}

/**
 * What a live run is waiting for: the state it is in and since when, the step that brought it there
 * and its attempt, where its table lets it go next, and, when a step's try failed in this state, the
 * last error and the next try (from the run's events: `retryScheduled` in its timeline).
 */
export function PendingStep({ run, transitions, now }: { run: Run; transitions: readonly RunTransition[]; now: Date }) {
  if (run.terminal) return null;
  // The change that entered this state (changes that stay in it, such as a scheduled retry, come after).
  const entered = [...transitions].reverse().find((transition) => transition.stateAfter === run.state && transition.stateBefore !== run.state);
  const since = new Date(entered?.occurredAt ?? run.updatedAt);
  const inThisState = transitions.filter((transition) => transition.version >= (entered?.version ?? 0) && transition.attemptNo === run.attemptNo);
  const lastRetry = [...inThisState].reverse().find((transition) => transition.retryScheduled !== null)?.retryScheduled ?? null;
  // Waiting on the backoff until a later change (the next try sent) comes.
  const backoffPending = lastRetry !== null && transitions.at(-1)?.retryScheduled === lastRetry;
  const next = WORKFLOW_TABLES.find((table) => table.type === run.workflowType)?.transitions[run.state] ?? [];
  const waitsForPerson = HUMAN_GATE.test(run.state);
  return (
    <section aria-labelledby="pending-title" class="pending-step">
      <h2 id="pending-title">Pending step</h2>
      <dl class="run-facts">
        <dt>Waiting in</dt>
        <dd data-pending-state={run.state}>
          {stateLabel(run.state)} {waitsForPerson ? '(waits for your decision)' : '(waits for the step’s reply)'}
        </dd>
        <dt>Since</dt>
        <dd>
          <time dateTime={since.toISOString()}>{since.toLocaleTimeString()}</time> ({elapsed(since, now)} ago)
        </dd>
        {entered !== undefined && (
          <>
            <dt>Step</dt>
            <dd>
              <code>{entered.stepName}</code>, attempt {entered.attemptNo}
            </dd>
          </>
        )}
        <dt>Run attempt</dt>
        <dd>{run.attemptNo}</dd>
        <dt>Next</dt>
        <dd>{next.length === 0 ? 'nothing the table allows' : `one of ${next.map(stateLabel).join(', ')}`}</dd>
        {lastRetry !== null && (
          <>
            <dt>Last error</dt>
            <dd data-last-error={lastRetry.reason}>
              <code>{lastRetry.reason}</code> (try {lastRetry.failedTry} of <code>{lastRetry.step}</code>)
            </dd>
          </>
        )}
        <dt>Next retry</dt>
        <dd data-next-retry={backoffPending ? lastRetry.nextTryAt : 'none'}>
          {backoffPending ? (
            <>
              try {lastRetry.nextTry} at <time dateTime={lastRetry.nextTryAt}>{new Date(lastRetry.nextTryAt).toLocaleTimeString()}</time> ({until(new Date(lastRetry.nextTryAt), now)})
            </>
          ) : lastRetry !== null ? (
            `none scheduled: try ${lastRetry.nextTry} was sent`
          ) : (
            'none scheduled'
          )}
        </dd>
      </dl>
    </section>
  );
}
