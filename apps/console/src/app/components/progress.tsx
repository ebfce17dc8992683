import type { Run, RunTransition } from '../api/resources.js';
import { mainPathProgress, stateLabel, type StepStatus, WORKFLOWS } from '../workflows.js';

const STATUS_TEXT: Record<StepStatus, string> = { done: 'done', current: 'current state', upcoming: 'not reached', skipped: 'skipped' };

/** The run on its workflow's main path (spec 01's states for problems); nothing for a workflow without one. */
export function Progress({ run, transitions }: { run: Run; transitions: readonly RunTransition[] }) {
  const mainPath = WORKFLOWS.find((workflow) => workflow.type === run.workflowType)?.mainPath ?? [];
  if (mainPath.length === 0) return null;
  const visited = transitions.flatMap((transition) => [transition.stateBefore ?? '', transition.stateAfter]).filter((state) => state !== '');
  const failedOff = !mainPath.includes(run.state);
  return (
    <section aria-labelledby="progress-title">
      <h2 id="progress-title">Progress</h2>
      <ol class="progress">
        {mainPathProgress(mainPath, visited, run.state).map(({ state, status }) => (
          <li key={state} class={`step step-${status}`} aria-current={status === 'current' ? 'step' : undefined} data-state={state}>
            <span class="step-name">{stateLabel(state)}</span> <span class="step-status">({STATUS_TEXT[status]})</span>
          </li>
        ))}
        {failedOff && (
          <li class="step step-current step-off-path" aria-current="step" data-state={run.state}>
            <span class="step-name">{stateLabel(run.state)}</span> <span class="step-status">(current state)</span>
          </li>
        )}
      </ol>
    </section>
  );
}
