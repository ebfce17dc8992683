import { ExpansionSelected } from '@openpaw/contracts';
import { replyTo } from '@openpaw/messaging';
import { InMemoryRunMemory } from './in-memory-run-memory.js';
import { RunMemoryReplies } from './run-memory-replies.js';

const run = { sessionId: 's-1', runId: '00000000-0000-4000-8000-000000000001' };
const selected = replyTo('cmd-1', ExpansionSelected, {
  runId: run.runId,
  commandId: 'cmd-1',
  step: 2,
  nextCandidates: [{ name: 'Hugo Dunfield', celebrityId: 'c-hugo' }],
  searchQueries: ['Ada Belwick Hugo Dunfield gala'],
  narration: 'Trying an expansion via Hugo Dunfield…',
  decidedBy: 'fallback',
  fallbackReason: 'no_llm_budget',
  usage: { llmCalls: 0, costUsd: 0 },
});

describe('RunMemoryReplies', () => {
  it('gives back the replies kept for a command, as they are published (definition, id, data)', async () => {
    const replies = new RunMemoryReplies(new InMemoryRunMemory(), run);
    await replies.keep('cmd-1', [selected]);
    expect(await replies.find('cmd-1')).toEqual([selected]);
    expect(await replies.find('cmd-2')).toBeUndefined();
  });

  it('counts an unreadable entry (another shape, an expired schema) as no reply: the command is answered again', async () => {
    const memory = new InMemoryRunMemory();
    await memory.putReply(run, 'cmd-1', { kind: 'expansion_selected', id: selected.id, data: selected.data });
    expect(await new RunMemoryReplies(memory, run).find('cmd-1')).toBeUndefined();
  });
});
