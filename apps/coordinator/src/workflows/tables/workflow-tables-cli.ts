/**
 * Writes the transition tables of every workflow the coordinator runs (default
 * `apps/coordinator/workflow-tables.json`), for the web console's state diagrams:
 * `node dist/apps/coordinator/src/workflows/tables/workflow-tables-cli.js [path]`.
 */
import { writeFileSync } from 'node:fs';
import { productionRegistry } from '../index.js';
import { renderWorkflowTables, WORKFLOW_TABLES_FILE } from './workflow-tables.js';

const target = process.argv[2] ?? WORKFLOW_TABLES_FILE;
writeFileSync(target, renderWorkflowTables(productionRegistry().all()));
console.log(`workflow tables: wrote ${target}`);
