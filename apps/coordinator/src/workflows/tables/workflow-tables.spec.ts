import { RESEARCH_WORKFLOW } from '@openpaw/contracts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { productionRegistry, RESEARCH_TRANSITIONS, RETRIEVE_OR_GENERATE, RETRIEVE_OR_GENERATE_TRANSITIONS } from '../index.js';
import { renderWorkflowTables, WORKFLOW_TABLES_FILE, workflowTableOf, type WorkflowTableDocument } from './workflow-tables.js';

const root = join(import.meta.dirname, '../../../../..');

/** A table's targets in a stable order: the definition derives its table from its rows, in their order. */
function sorted(transitions: Readonly<Partial<Record<string, readonly string[]>>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(transitions).map(([state, targets]) => [state, [...(targets ?? [])].sort()]));
}

describe("the workflows' transition tables as data", () => {
  it('carry a definition as the engine enforces it: states, start, ends, cancel target and allowed targets', () => {
    const definition = productionRegistry().get(RETRIEVE_OR_GENERATE);
    if (definition === undefined) throw new Error('RetrieveOrGenerate is not registered');
    const table = workflowTableOf(definition);
    expect(table).toMatchObject({ type: RETRIEVE_OR_GENERATE, initial: 'INITIATED', cancelledState: 'CANCELLED' });
    expect(table.terminal).toEqual(expect.arrayContaining(['SUCCEEDED', 'FAILED', 'CANCELLED']));
    expect(sorted(table.transitions)).toEqual(sorted(RETRIEVE_OR_GENERATE_TRANSITIONS));
  });

  it('match the committed document the console draws from (run `npm run api:generate` after changing a table)', () => {
    const committed = readFileSync(join(root, WORKFLOW_TABLES_FILE), 'utf8');
    expect(committed).toBe(renderWorkflowTables(productionRegistry().all()));
    const research = (JSON.parse(committed) as WorkflowTableDocument[]).find((table) => table.type === RESEARCH_WORKFLOW);
    expect(sorted(research?.transitions ?? {})).toEqual(sorted(RESEARCH_TRANSITIONS));
  });
});
