import { WORKFLOW_TABLES } from '../api/workflow-tables.js';
import type { RunTransition } from '../api/resources.js';
import { layoutDiagram, NODE_HEIGHT, NODE_WIDTH, pathTaken, type StateStatus } from '../diagram/layout.js';
import { stateLabel } from '../workflows.js';

const STATUS_TEXT: Record<StateStatus, string> = { current: 'current state', visited: 'passed through', unvisited: 'not reached' };

/**
 * The workflow's state diagram, drawn from the transition table the coordinator enforces (generated
 * from its definitions), with the run's current state and the path it took highlighted. The SVG is
 * one image for assistive technology; the list beside it says the same in words.
 */
export function StateDiagram({ workflowType, state, transitions }: { workflowType: string; state: string; transitions: readonly RunTransition[] }) {
  const table = WORKFLOW_TABLES.find((candidate) => candidate.type === workflowType);
  if (table === undefined) return null;
  const layout = layoutDiagram(table);
  const path = pathTaken(transitions, table.initial, state);
  const passed = table.states.filter((candidate) => path.status(candidate) === 'visited');
  return (
    <section aria-labelledby="diagram-title">
      <h2 id="diagram-title">State diagram</h2>
      <p id="diagram-summary" class="hint">
        Current state: <strong>{stateLabel(state)}</strong>.{passed.length > 0 && ` Passed through: ${passed.map(stateLabel).join(', ')}.`} Every box is a
        state of the workflow, every arrow a transition its table allows; the run's path is drawn bold.
      </p>
      <div class="diagram">
        <svg viewBox={`0 0 ${layout.width} ${layout.height}`} width={layout.width} role="img" aria-labelledby="diagram-title diagram-summary" class="state-diagram">
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
            </marker>
            <marker id="arrow-taken" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" class="arrow-head-taken" />
            </marker>
          </defs>
          {layout.edges.map((edge) => {
            const taken = path.taken(edge.from, edge.to);
            return (
              <path
                key={`${edge.from}→${edge.to}`}
                d={edge.path}
                class={`edge${taken ? ' edge-taken' : ''}${edge.returning ? ' edge-returning' : ''}`}
                data-edge={`${edge.from}→${edge.to}`}
                data-taken={taken ? 'true' : undefined}
                marker-end={taken ? 'url(#arrow-taken)' : 'url(#arrow)'}
              />
            );
          })}
          {layout.states.map((placed) => {
            const status = path.status(placed.state);
            return (
              <g key={placed.state} class={`node node-${status}${placed.terminal ? ' node-terminal' : ''}`} data-state={placed.state} data-status={status}>
                <title>{`${stateLabel(placed.state)}: ${STATUS_TEXT[status]}`}</title>
                <rect x={placed.x} y={placed.y} width={NODE_WIDTH} height={NODE_HEIGHT} rx={placed.terminal ? 17 : 5} />
                <text x={placed.x + NODE_WIDTH / 2} y={placed.y + NODE_HEIGHT / 2} dominant-baseline="central" text-anchor="middle">
                  {stateLabel(placed.state)}
                </text>
              </g>
            );
          })}
        </svg>
      </div>
    </section>
  );
}
