import type { WorkflowTable } from './workflow-table.js';

/** Node boxes and gaps of the drawing, in SVG units. */
export const NODE_WIDTH = 210;
export const NODE_HEIGHT = 34;
const COLUMN_GAP = 28;
const ROW_GAP = 40;
const MARGIN = 16;
/** Room on the right for edges going back up (a retry, a rejected checkpoint). */
const RETURN_LANE = 60;

export interface PlacedState {
  readonly state: string;
  readonly x: number;
  readonly y: number;
  readonly row: number;
  readonly terminal: boolean;
}

export interface PlacedEdge {
  readonly from: string;
  readonly to: string;
  /** An SVG path from the source box to the target box. */
  readonly path: string;
  /** Drawn back up (or sideways): the target is not below the source. */
  readonly returning: boolean;
}

export interface DiagramLayout {
  readonly width: number;
  readonly height: number;
  readonly states: readonly PlacedState[];
  readonly edges: readonly PlacedEdge[];
}

/**
 * Rows by the longest forward path from the initial state (a depth-first walk marks the edges that
 * go back as returning, so loops do not stretch the drawing); every terminal state on the last row.
 * Within a row, states keep the definition's order.
 */
function rowsOf(table: WorkflowTable): Map<string, number> {
  const terminal = new Set(table.terminal);
  const targets = (state: string): readonly string[] => table.transitions[state] ?? [];
  const forward = new Map<string, string[]>();
  const onPath = new Set<string>();
  const done = new Set<string>();
  const walk = (state: string): void => {
    onPath.add(state);
    // A terminal state's way out (a reopened failure) always goes back up: it never orders the rows.
    for (const target of terminal.has(state) ? [] : targets(state)) {
      if (onPath.has(target)) continue; // a loop back: drawn as returning
      forward.set(target, [...(forward.get(target) ?? []), state]);
      if (!done.has(target)) walk(target);
    }
    onPath.delete(state);
    done.add(state);
  };
  walk(table.initial);
  for (const state of table.states) if (!done.has(state)) walk(state);

  const rows = new Map<string, number>();
  const rowOf = (state: string, seen: ReadonlySet<string>): number => {
    const known = rows.get(state);
    if (known !== undefined) return known;
    const sources = (forward.get(state) ?? []).filter((source) => !seen.has(source) && !terminal.has(source));
    const row = state === table.initial || sources.length === 0 ? 0 : 1 + Math.max(...sources.map((source) => rowOf(source, new Set([...seen, state]))));
    rows.set(state, row);
    return row;
  };
  const working = table.states.filter((state) => !terminal.has(state));
  for (const state of working) rowOf(state, new Set());
  const lastRow = 1 + Math.max(0, ...working.map((state) => rows.get(state) ?? 0));
  for (const state of table.terminal) rows.set(state, lastRow);
  return rows;
}

/** Where each state and each allowed transition of a workflow is drawn. */
export function layoutDiagram(table: WorkflowTable): DiagramLayout {
  const rows = rowsOf(table);
  const rowCount = 1 + Math.max(0, ...rows.values());
  const byRow: string[][] = Array.from({ length: rowCount }, () => []);
  for (const state of table.states) byRow[rows.get(state) ?? 0]?.push(state);
  const widest = Math.max(1, ...byRow.map((row) => row.length));
  const contentWidth = widest * NODE_WIDTH + (widest - 1) * COLUMN_GAP;
  const terminal = new Set(table.terminal);

  const placed = new Map<string, PlacedState>();
  byRow.forEach((states, row) => {
    const rowWidth = states.length * NODE_WIDTH + (states.length - 1) * COLUMN_GAP;
    const left = MARGIN + (contentWidth - rowWidth) / 2;
    states.forEach((state, index) => {
      placed.set(state, { state, row, x: left + index * (NODE_WIDTH + COLUMN_GAP), y: MARGIN + row * (NODE_HEIGHT + ROW_GAP), terminal: terminal.has(state) });
    });
  });

  const rightEdge = MARGIN + contentWidth;
  const edges: PlacedEdge[] = [];
  for (const from of table.states) {
    const source = placed.get(from);
    for (const to of table.transitions[from] ?? []) {
      const target = placed.get(to);
      if (source === undefined || target === undefined) continue;
      const returning = target.row <= source.row;
      edges.push({ from, to, returning, path: returning ? returningPath(source, target, rightEdge) : forwardPath(source, target) });
    }
  }
  return { width: rightEdge + RETURN_LANE + MARGIN, height: MARGIN * 2 + rowCount * NODE_HEIGHT + (rowCount - 1) * ROW_GAP, states: [...placed.values()], edges };
}

const round = (value: number): number => Math.round(value * 10) / 10;

/** Down from the source's bottom to the target's top, bending smoothly. */
function forwardPath(source: PlacedState, target: PlacedState): string {
  const x1 = source.x + NODE_WIDTH / 2;
  const y1 = source.y + NODE_HEIGHT;
  const x2 = target.x + NODE_WIDTH / 2;
  const y2 = target.y;
  const bend = (y2 - y1) / 2;
  return `M${round(x1)},${round(y1)} C${round(x1)},${round(y1 + bend)} ${round(x2)},${round(y2 - bend)} ${round(x2)},${round(y2)}`;
}

/** Out of the source's right side, up (or across) the lane right of the drawing, into the target's right side. */
function returningPath(source: PlacedState, target: PlacedState, rightEdge: number): string {
  const x1 = source.x + NODE_WIDTH;
  const y1 = source.y + NODE_HEIGHT / 2;
  const x2 = target.x + NODE_WIDTH;
  const y2 = target.y + NODE_HEIGHT / 2 + (target.row === source.row ? 0 : 6);
  const lane = rightEdge + 20 + Math.min(30, 8 * Math.abs(source.row - target.row));
  return `M${round(x1)},${round(y1)} C${round(lane)},${round(y1)} ${round(lane)},${round(y2)} ${round(x2)},${round(y2)}`;
}

export type StateStatus = 'current' | 'visited' | 'unvisited';

/** Which states and transitions a run went through, from its state changes (oldest first). */
export function pathTaken(
  transitions: readonly { readonly stateBefore: string | null; readonly stateAfter: string }[],
  initial: string,
  current: string,
): { readonly status: (state: string) => StateStatus; readonly taken: (from: string, to: string) => boolean } {
  const visited = new Set([initial, current]);
  const edges = new Set<string>();
  let previous = initial;
  for (const transition of transitions) {
    const from = transition.stateBefore ?? previous;
    visited.add(from);
    visited.add(transition.stateAfter);
    // A run's first event may already name its second state (RetrieveOrGenerate starts in INGESTING).
    if (from !== transition.stateAfter) edges.add(`${from}→${transition.stateAfter}`);
    previous = transition.stateAfter;
  }
  return {
    status: (state) => (state === current ? 'current' : visited.has(state) ? 'visited' : 'unvisited'),
    taken: (from, to) => edges.has(`${from}→${to}`),
  };
}
