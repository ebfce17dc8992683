import { isReplyOf } from '@openpaw/messaging';
import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { createLlmFromEnv } from '@openpaw/providers';
import { type ParsedIntent, userFeedback, SearchStrategyBuilt } from '@openpaw/contracts';
import { RUN_ID, skillsFor, testSettings } from '../../testing/handler-fixtures.js';
import { BuildSearchStrategyHandler } from './build-search-strategy.handler.js';

const intent: ParsedIntent = { topic: 'protein folding', concepts: ['protein folding'], intentType: 'method', constraints: { yearFrom: null, yearTo: null, language: null, maxResults: 100 } };

describe('BuildSearchStrategyHandler', () => {
  it('given no previous strategy, the diff is null; given one and feedback, the diff shows what changed', async () => {
    const handler = new BuildSearchStrategyHandler(skillsFor(createLlmFromEnv({})), new InMemoryKeptReplyStore(), testSettings);
    const first = await handler.execute({ commandId: 'b1', data: { runId: RUN_ID, iteration: 1, intent, previousStrategies: [], feedback: null, availableSources: ['library'] } });
    if (!isReplyOf(first, SearchStrategyBuilt)) throw new Error(`unexpected ${first.message.name}`);
    expect(first.data.diff).toBeNull();

    const second = await handler.execute({
      commandId: 'b2',
      data: { runId: RUN_ID, iteration: 2, intent, previousStrategies: [first.data.strategy], feedback: userFeedback.parse({ freeText: 'more on molecular dynamics' }), availableSources: ['library', 'arxiv'] },
    });
    expect(second).toMatchObject({ message: SearchStrategyBuilt, data: { iteration: 2, diff: { addedKeywords: ['molecular dynamics'], addedSources: ['arxiv'] } } });
  });
});
