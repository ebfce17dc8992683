import { type ParsedIntent, searchStrategy, userFeedback } from '@openpaw/contracts';
import { scriptedLlm } from '../../testing/scripted-llm.js';
import { readFeedback } from './feedback-reading.js';
import { LlmStrategyBuilder } from './llm-strategy-builder.js';
import { LocalStrategyBuilder } from './local-strategy-builder.js';
import { querySignature } from './strategy-builder.js';
import { strategyDiff } from './strategy-diff.js';

const intent: ParsedIntent = {
  topic: 'graph neural networks for molecular property prediction',
  concepts: ['graph neural networks', 'molecular property prediction'],
  intentType: 'method',
  constraints: { yearFrom: 2019, yearTo: null, language: null, maxResults: 50 },
};
const year = () => 2026;

describe('the local strategy builder (UserFeedback + previous strategies → next strategy)', () => {
  it('builds the first strategy from the intent', async () => {
    const { strategy, provenance } = await new LocalStrategyBuilder(year).build({ intent, previousStrategies: [], feedback: null, availableSources: ['library', 'arxiv'] });
    expect(strategy).toEqual({
      queries: [{ keywords: ['graph neural networks', 'molecular property prediction'], synonyms: [], booleanQuery: '"graph neural networks" AND "molecular property prediction"' }],
      sources: ['library', 'arxiv'],
      filters: { yearFrom: 2019, yearTo: null, language: null, maxResults: 50 },
      excludedTerms: [],
    });
    expect(provenance.local).toBe(true);
  });

  it('turns free-text feedback into added queries, excluded terms and new year bounds', async () => {
    const builder = new LocalStrategyBuilder(year);
    const first = (await builder.build({ intent, previousStrategies: [], feedback: null, availableSources: ['library'] })).strategy;
    const feedback = userFeedback.parse({ freeText: 'more on drug discovery, no surveys, only since 2021' });
    const { strategy } = await builder.build({ intent, previousStrategies: [first], feedback, availableSources: ['library'] });
    expect(strategy.queries.map((q) => q.keywords)).toEqual([
      ['graph neural networks', 'molecular property prediction'],
      ['graph neural networks', 'drug discovery'],
    ]);
    expect(strategy.excludedTerms).toEqual(['surveys']);
    expect(strategy.queries[1]!.booleanQuery).toBe('"graph neural networks" AND "drug discovery" NOT surveys');
    expect(strategy.filters.yearFrom).toBe(2021);

    const diff = strategyDiff(first, strategy);
    expect(diff).toMatchObject({ addedKeywords: ['drug discovery'], removedKeywords: [], addedExcludedTerms: ['surveys'], filterChanges: [{ field: 'yearFrom', from: 2019, to: 2021 }] });
    expect(diff.addedQueries).toHaveLength(2);
  });

  it('never silently repeats an earlier strategy: feedback with nothing new broadens to one query per concept', async () => {
    const builder = new LocalStrategyBuilder(year);
    const first = (await builder.build({ intent, previousStrategies: [], feedback: null, availableSources: ['library'] })).strategy;
    const { strategy } = await builder.build({ intent, previousStrategies: [first], feedback: userFeedback.parse({ freeText: null, markedIrrelevant: ['doi:10.1/x'] }), availableSources: ['library'] });
    expect(querySignature(strategy)).not.toBe(querySignature(first));
    expect(strategy.queries.map((q) => q.keywords)).toEqual([['graph neural networks', 'molecular property prediction'], ['graph neural networks'], ['molecular property prediction']]);
  });

  it('reads feedback phrases', () => {
    expect(readFeedback('exclude reinforcement learning; focus on transformers', 2026)).toMatchObject({ include: ['transformers'], exclude: ['reinforcement learning'] });
    expect(readFeedback('protein design please', 2026).include).toEqual(['protein design']);
    expect(readFeedback(null, 2026).include).toEqual([]);
  });
});

describe('the LLM strategy builder', () => {
  it('sends the intent, previous strategies and feedback, and builds well-formed boolean queries itself', async () => {
    const llm = scriptedLlm();
    llm.script.push(() => ({
      queries: [{ keywords: ['message passing neural network', 'molecule'], synonyms: [{ keyword: 'molecule', synonyms: ['compound'] }] }],
      excluded_terms: ['survey'],
      year_from: 2020,
      year_to: null,
    }));
    const previous = searchStrategy.parse({ queries: [{ keywords: ['gnn'], booleanQuery: 'gnn' }], sources: ['arxiv'], filters: {} });
    const feedback = userFeedback.parse({ markedRelevant: ['arxiv:1704.01212'], freeText: 'no surveys' });
    const { strategy, provenance } = await new LlmStrategyBuilder({ llm, maxTokens: 800 }).build({ intent, previousStrategies: [previous], feedback, availableSources: ['arxiv', 'openalex'] });
    expect(strategy).toEqual({
      queries: [{ keywords: ['message passing neural network', 'molecule'], synonyms: [{ keyword: 'molecule', synonyms: ['compound'] }], booleanQuery: '"message passing neural network" AND (molecule OR compound) NOT survey' }],
      sources: ['arxiv', 'openalex'],
      filters: { yearFrom: 2020, yearTo: null, language: null, maxResults: 50 },
      excludedTerms: ['survey'],
    });
    expect(provenance.local).toBe(false);
    const sent = JSON.parse(llm.calls[0]![1]!.content) as Record<string, unknown>;
    expect(sent).toMatchObject({ previous_strategies: [previous], feedback: { markedRelevant: ['arxiv:1704.01212'], freeText: 'no surveys' } });
  });
});
