import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { createLlmFromEnv } from '@openpaw/providers';
import { deterministicUuid, PaperSearchIntentParsed, PaperSearchStepFailed } from '@openpaw/contracts';
import { RUN_ID, skillsFor, testSettings } from '../../testing/handler-fixtures.js';
import { scriptedLlm } from '../../testing/scripted-llm.js';
import { ParsePaperSearchIntentHandler } from './parse-paper-search-intent.handler.js';

describe('ParsePaperSearchIntentHandler', () => {
  it('given the local model, when a request arrives, then it answers PaperSearchIntentParsed with a deterministic id', async () => {
    const handler = new ParsePaperSearchIntentHandler(skillsFor(createLlmFromEnv({})), new InMemoryKeptReplyStore(), testSettings);
    const reply = await handler.execute({ commandId: 'cmd-1', data: { runId: RUN_ID, query: 'protein folding since 2020' } });
    expect(reply).toMatchObject({
      message: PaperSearchIntentParsed,
      id: deterministicUuid('cmd-1', PaperSearchIntentParsed.subject),
      data: { runId: RUN_ID, commandId: 'cmd-1', intent: { concepts: ['protein folding'], constraints: { yearFrom: 2020 } }, provenance: { local: true } },
    });
  });

  it('given a kept reply, when the command is redelivered, then the same reply comes back without asking the model again', async () => {
    const llm = scriptedLlm();
    llm.script.push(() => ({ topic: 't', concepts: ['c'], intent_type: 'method', year_from: null, year_to: null, language: null, max_results: null }));
    const handler = new ParsePaperSearchIntentHandler(skillsFor(llm), new InMemoryKeptReplyStore(), testSettings);
    const first = await handler.execute({ commandId: 'cmd-2', data: { runId: RUN_ID, query: 'q' } });
    const second = await handler.execute({ commandId: 'cmd-2', data: { runId: RUN_ID, query: 'q' } });
    expect(second).toEqual(first);
    expect(llm.calls).toHaveLength(1);
  });

  it('given a model that answers nonsense, then the step fails with invalid_output (the run fails with this reason)', async () => {
    const llm = scriptedLlm();
    llm.script.push(() => ({ topic: '' }));
    const reply = await new ParsePaperSearchIntentHandler(skillsFor(llm), new InMemoryKeptReplyStore(), testSettings).execute({ commandId: 'cmd-3', data: { runId: RUN_ID, query: 'q' } });
    expect(reply).toMatchObject({ message: PaperSearchStepFailed, id: deterministicUuid('cmd-3', PaperSearchStepFailed.subject), data: { step: 'parse_intent', errorCode: 'invalid_output', retryable: true } });
  });

  it('given a broken store, then the error is thrown for redelivery, not turned into a step failure', async () => {
    const replies = new InMemoryKeptReplyStore();
    replies.find = () => Promise.reject(new Error('database is down'));
    await expect(new ParsePaperSearchIntentHandler(skillsFor(createLlmFromEnv({})), replies, testSettings).execute({ commandId: 'c', data: { runId: RUN_ID, query: 'q' } })).rejects.toThrow('database is down');
  });
});
