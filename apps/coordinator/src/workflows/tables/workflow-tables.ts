import type { AnySagaDefinition } from '@openpaw/saga';

/**
 * A workflow's transition table as data, for those who draw it (the web console's state diagram):
 * the states, where a run starts and ends, and where each state may go.
 */
export interface WorkflowTableDocument {
  readonly type: string;
  readonly states: readonly string[];
  readonly initial: string;
  readonly terminal: readonly string[];
  /** The state an owner's cancel moves to, where the table allows it. */
  readonly cancelledState: string | null;
  /** Allowed targets per state, in the definition's order; a state absent here allows nothing. */
  readonly transitions: Readonly<Record<string, readonly string[]>>;
}

/** The committed document (`apps/coordinator/workflow-tables.json`); `npm run api:generate` rewrites it. */
export const WORKFLOW_TABLES_FILE = 'apps/coordinator/workflow-tables.json';

export function workflowTableOf(definition: AnySagaDefinition): WorkflowTableDocument {
  const transitions: Record<string, readonly string[]> = {};
  for (const state of definition.states) {
    const targets = (definition.transitions as Partial<Record<string, readonly string[]>>)[state];
    if (targets !== undefined && targets.length > 0) transitions[state] = [...targets];
  }
  return {
    type: definition.type,
    states: [...definition.states],
    initial: definition.initial,
    terminal: [...definition.terminal],
    cancelledState: definition.cancelledState ?? null,
    transitions,
  };
}

/** The tables of every workflow the coordinator runs, as the committed JSON file holds them. */
export function renderWorkflowTables(definitions: readonly AnySagaDefinition[]): string {
  return `${JSON.stringify(definitions.map(workflowTableOf), null, 2)}\n`;
}
