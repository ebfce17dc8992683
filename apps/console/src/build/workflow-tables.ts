import { readFileSync } from 'node:fs';

/** The coordinator's committed transition tables, and the console module generated from them (paths from the repository root). */
export const COORDINATOR_WORKFLOW_TABLES_FILE = 'apps/coordinator/workflow-tables.json';
export const CONSOLE_WORKFLOW_TABLES_FILE = 'apps/console/src/app/api/workflow-tables.ts';

/**
 * The console's module of the workflows' transition tables: the coordinator's document as a typed
 * constant, so the state diagrams are drawn from the tables the engine enforces, never by hand.
 */
export function renderWorkflowTablesModule(document: unknown): string {
  return `/**
 * Generated from ${COORDINATOR_WORKFLOW_TABLES_FILE} by \`npm run api:generate\`. Do not edit.
 */
import type { WorkflowTable } from '../diagram/workflow-table.js';

export const WORKFLOW_TABLES: readonly WorkflowTable[] = ${JSON.stringify(document, null, 2)};
`;
}

export function readWorkflowTables(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}
