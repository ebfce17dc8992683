import type { RunTransition } from '../api/resources.js';
import { stateLabel } from '../workflows.js';

/** The run's timeline: every state change the gateway saw, oldest first, with the step that caused it. */
export function Timeline({ transitions }: { transitions: readonly RunTransition[] }) {
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      {transitions.length === 0 ? (
        <p>No state change recorded yet.</p>
      ) : (
        <ol class="timeline">
          {transitions.map((transition) => (
            <li key={transition.version} data-state={transition.stateAfter}>
              <time dateTime={transition.occurredAt}>{new Date(transition.occurredAt).toLocaleTimeString()}</time>{' '}
              <strong>{transition.stateBefore === null ? 'Started' : `${stateLabel(transition.stateBefore)} → ${stateLabel(transition.stateAfter)}`}</strong>
              {transition.stateBefore === null && ` in ${stateLabel(transition.stateAfter)}`}
              <span class="step-cause">
                {' '}
                by <code>{transition.stepName}</code>, attempt {transition.attemptNo}
              </span>
              {transition.retryScheduled !== null && (
                <span class="step-cause" data-retry-scheduled={transition.retryScheduled.nextTry}>
                  {' '}
                  — try {transition.retryScheduled.failedTry} of <code>{transition.retryScheduled.step}</code> failed ({transition.retryScheduled.reason}); try{' '}
                  {transition.retryScheduled.nextTry} at <time dateTime={transition.retryScheduled.nextTryAt}>{new Date(transition.retryScheduled.nextTryAt).toLocaleTimeString()}</time>
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
