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

/**
 * What a live run is waiting for: the state it is in and since when, the step that brought it there
 * and its attempt, and where its table lets it go next. Retry timers live in the coordinator and are
 * not in the events the gateway projects, so a retry inside a state shows only as time waiting.
 */
export function PendingStep({ run, transitions, now }: { run: Run; transitions: readonly RunTransition[]; now: Date }) {
  if (run.terminal) return null;
  const entered = [...transitions].reverse().find((transition) => transition.stateAfter === run.state);
  const since = new Date(entered?.occurredAt ?? run.updatedAt);
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
        <dt>Next retry</dt>
        <dd class="hint">kept by the coordinator, not published to the gateway</dd>
      </dl>
    </section>
  );
}
