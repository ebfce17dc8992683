/**
 * Regenerates the console's workflow tables from the coordinator's committed document
 * (run from the repository root: `npm run api:generate`).
 */
import { writeFileSync } from 'node:fs';
import { CONSOLE_WORKFLOW_TABLES_FILE, COORDINATOR_WORKFLOW_TABLES_FILE, readWorkflowTables, renderWorkflowTablesModule } from './workflow-tables.js';

writeFileSync(CONSOLE_WORKFLOW_TABLES_FILE, renderWorkflowTablesModule(readWorkflowTables(COORDINATOR_WORKFLOW_TABLES_FILE)));
console.log(`workflow tables: wrote ${CONSOLE_WORKFLOW_TABLES_FILE}`);
