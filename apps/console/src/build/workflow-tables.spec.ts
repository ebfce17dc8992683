import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_WORKFLOW_TABLES_FILE, COORDINATOR_WORKFLOW_TABLES_FILE, readWorkflowTables, renderWorkflowTablesModule } from './workflow-tables.js';

const root = join(import.meta.dirname, '../../../..');

describe("the console's generated workflow tables", () => {
  it("match the coordinator's committed transition tables (run `npm run api:generate` after changing a workflow's table)", () => {
    const rendered = renderWorkflowTablesModule(readWorkflowTables(join(root, COORDINATOR_WORKFLOW_TABLES_FILE)));
    expect(readFileSync(join(root, CONSOLE_WORKFLOW_TABLES_FILE), 'utf8')).toBe(rendered);
  });
});
