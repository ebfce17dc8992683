import { createRequire } from 'node:module';
import type { Tree } from '@nx/devkit';
import { createTreeWithEmptyWorkspace } from '@nx/devkit/testing';

const require = createRequire(import.meta.url);
type Generator = (tree: Tree, options: Record<string, string>) => Promise<void>;
const workflow = require('./workflow/generator.cjs') as Generator;
const commandHandler = require('./command-handler/generator.cjs') as Generator;

describe('workspace generators', () => {
  it('scaffold a workflow as a table of rows with a spec checking the derived table', async () => {
    const tree = createTreeWithEmptyWorkspace();
    await workflow(tree, { name: 'paper_search', command: 'ParseIntent', service: 'research' });
    const definition = tree.read('apps/coordinator/src/workflows/paper-search/paper-search.definition.ts', 'utf8') ?? '';
    expect(definition).toContain("export const PAPER_SEARCH = 'paper_search';");
    expect(definition).toContain('decide: decideByTable(PAPER_SEARCH, table)');
    expect(definition).toContain('onEvent(ParseIntentDone, [\'SUCCEEDED\']');
    const spec = tree.read('apps/coordinator/src/workflows/paper-search/paper-search.definition.spec.ts', 'utf8') ?? '';
    expect(spec).toContain('expect(definition.transitions).toEqual(PAPER_SEARCH_TRANSITIONS);');
    await expect(workflow(tree, { name: 'paper_search' })).rejects.toThrow('exists already');
  });

  it('scaffold a command handler folder (handler + spec) in an existing service', async () => {
    const tree = createTreeWithEmptyWorkspace();
    tree.write('apps/research/src/main.ts', '');
    await commandHandler(tree, { service: 'research', command: 'RunLeg' });
    const handler = tree.read('apps/research/src/handlers/run-leg/run-leg.handler.ts', 'utf8') ?? '';
    expect(handler).toContain('export class RunLegHandler');
    // The one reply idiom: answered once through the kept-reply store, replies built by replyTo.
    expect(handler).toContain('answerOnceWith(this.replies, command.commandId');
    expect(handler).toContain('replyTo(command.commandId, RunLegDone');
    await commandHandler(tree, { service: 'research', command: 'ExecuteLeg', reply: 'LegCompleted' });
    expect(tree.read('apps/research/src/handlers/execute-leg/execute-leg.handler.ts', 'utf8')).toContain('replyTo(command.commandId, LegCompleted');
    expect(tree.exists('apps/research/src/handlers/run-leg/run-leg.handler.spec.ts')).toBe(true);
    await expect(commandHandler(tree, { service: 'nope', command: 'RunLeg' })).rejects.toThrow('apps/nope does not exist');
  });
});
