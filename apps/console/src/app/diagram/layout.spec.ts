import { layoutDiagram, pathTaken } from './layout.js';
import type { WorkflowTable } from './workflow-table.js';

/** Spec 05's research table: a human gate, a retry loop, and a terminal state that may reopen. */
const RESEARCH: WorkflowTable = {
  type: 'research',
  states: ['draft', 'processing', 'retrying', 'synthesizing', 'awaiting_confirmation', 'completed', 'failed'],
  initial: 'draft',
  terminal: ['completed', 'failed'],
  cancelledState: 'failed',
  transitions: {
    draft: ['processing', 'failed'],
    processing: ['synthesizing', 'awaiting_confirmation', 'failed'],
    retrying: ['processing', 'synthesizing', 'awaiting_confirmation', 'failed'],
    awaiting_confirmation: ['synthesizing', 'retrying', 'failed'],
    synthesizing: ['completed', 'failed'],
    failed: ['retrying', 'synthesizing', 'completed'],
  },
};

describe('the state diagram of a workflow table', () => {
  const layout = layoutDiagram(RESEARCH);
  const rowOf = (state: string): number | undefined => layout.states.find((placed) => placed.state === state)?.row;

  it('draws every state once, the initial state on top and every terminal state on the last row', () => {
    expect(layout.states.map((placed) => placed.state).sort()).toEqual([...RESEARCH.states].sort());
    expect(rowOf('draft')).toBe(0);
    const lastRow = Math.max(...layout.states.map((placed) => placed.row));
    expect([rowOf('completed'), rowOf('failed')]).toEqual([lastRow, lastRow]);
  });

  it('puts a state below every state that leads to it on a forward path, so a run reads top to bottom', () => {
    expect(rowOf('processing')).toBeGreaterThan(rowOf('draft') ?? Infinity);
    expect(rowOf('awaiting_confirmation')).toBeGreaterThan(rowOf('processing') ?? Infinity);
    expect(rowOf('synthesizing')).toBeGreaterThan(rowOf('awaiting_confirmation') ?? Infinity);
  });

  it('draws every allowed transition, and marks the ones going back up (the retry loop, a reopened failure) as returning', () => {
    const allowed = Object.entries(RESEARCH.transitions).flatMap(([from, targets]) => targets.map((to) => `${from}→${to}`));
    expect(layout.edges.map((edge) => `${edge.from}→${edge.to}`).sort()).toEqual(allowed.sort());
    const returning = layout.edges.filter((edge) => edge.returning).map((edge) => `${edge.from}→${edge.to}`);
    expect(returning).toEqual(expect.arrayContaining(['failed→retrying', 'failed→synthesizing', 'failed→completed']));
    expect(returning).not.toContain('draft→processing');
  });

  it('keeps boxes inside the drawing and apart from each other', () => {
    for (const placed of layout.states) {
      expect(placed.x).toBeGreaterThanOrEqual(0);
      expect(placed.y).toBeGreaterThanOrEqual(0);
      expect(placed.x).toBeLessThan(layout.width);
      expect(placed.y).toBeLessThan(layout.height);
    }
    const corners = new Set(layout.states.map((placed) => `${placed.x},${placed.y}`));
    expect(corners.size).toBe(layout.states.length);
  });
});

describe('the path a run took', () => {
  it('marks the current state, the states and transitions it went through, and leaves the rest unvisited', () => {
    // RetrieveOrGenerate's first event already names its second state.
    const path = pathTaken(
      [
        { stateBefore: null, stateAfter: 'INGESTING' },
        { stateBefore: 'INGESTING', stateAfter: 'RETRIEVING' },
      ],
      'INITIATED',
      'RETRIEVING',
    );
    expect(['INITIATED', 'INGESTING', 'RETRIEVING', 'SUCCEEDED'].map(path.status)).toEqual(['visited', 'visited', 'current', 'unvisited']);
    expect(path.taken('INITIATED', 'INGESTING')).toBe(true);
    expect(path.taken('INGESTING', 'RETRIEVING')).toBe(true);
    expect(path.taken('RETRIEVING', 'SUCCEEDED')).toBe(false);
  });
});
