import { type ParsedIntent, searchStrategy, userFeedback } from '@openpaw/contracts';
import { scriptedLlm } from '../../testing/scripted-llm.js';
import { readFeedback } from './feedback-reading.js';
import { LlmStrategyBuilder } from './llm-strategy-builder.js';
import { LocalStrategyBuilder } from './local-strategy-builder.js';
import { steeringTerms } from './marked-paper-terms.js';
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

  describe('steering by marked papers', () => {
    const mark = (id: string, title: string, abstract: string | null = null) => ({ id, title, abstract, keywords: [] });
    const relevant = [
      mark('a', 'Equivariant message passing for molecular property prediction', 'We propose equivariant message passing on molecular graphs for quantum chemistry.'),
      mark('b', 'Message passing networks for quantum chemistry', 'Neural message passing predicts molecular properties from atoms and bonds.'),
      mark('c', 'Equivariant graph networks for drug binding', 'Equivariant layers model atoms in protein pockets.'),
    ];
    const irrelevant = [
      mark('x', 'Graph networks for traffic forecasting', 'Spatio-temporal traffic sensors on road networks.'),
      mark('y', 'Traffic speed forecasting with graph convolutions', 'Road sensors and traffic flow.'),
    ];

    it('adds the terms the relevant papers share and excludes those the irrelevant ones share, none already searched', () => {
      expect(steeringTerms({ relevant, irrelevant }, intent.concepts)).toEqual({ include: ['equivariant', 'message', 'passing'], exclude: ['forecasting', 'traffic'] });
      // The same marks in another order give the same terms.
      expect(steeringTerms({ relevant: [...relevant].reverse(), irrelevant: [...irrelevant].reverse() }, intent.concepts)).toEqual(steeringTerms({ relevant, irrelevant }, intent.concepts));
      expect(steeringTerms(undefined, intent.concepts)).toEqual({ include: [], exclude: [] });
      // One marked paper is enough to steer; a term in a relevant paper is never excluded; a word in
      // no title ("road", "sensors": how the abstracts are written) never steers.
      expect(steeringTerms({ relevant: [relevant[1]!], irrelevant: [] }, intent.concepts).include).toEqual(['chemistry', 'message', 'passing']);
      expect(steeringTerms({ relevant: [mark('r', 'Traffic of molecules')], irrelevant }, intent.concepts).exclude).toEqual(['forecasting']);
    });

    it('builds the next strategy with a query per distinctive term and the irrelevant terms excluded', async () => {
      const builder = new LocalStrategyBuilder(year);
      const first = (await builder.build({ intent, previousStrategies: [], feedback: null, availableSources: ['library'] })).strategy;
      const feedback = userFeedback.parse({ markedRelevant: ['a', 'b', 'c'], markedIrrelevant: ['x', 'y'] });
      const { strategy } = await builder.build({ intent, previousStrategies: [first], feedback, availableSources: ['library'], markedPapers: { relevant, irrelevant } });
      expect(strategy.queries.map((q) => q.keywords)).toEqual([
        ['graph neural networks', 'molecular property prediction'],
        ['graph neural networks', 'equivariant'],
        ['graph neural networks', 'message'],
        ['graph neural networks', 'passing'],
      ]);
      expect(strategy.excludedTerms).toEqual(['forecasting', 'traffic']);
      expect(strategy.queries[1]!.booleanQuery).toBe('"graph neural networks" AND equivariant NOT forecasting NOT traffic');
    });
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
    expect(sent).toMatchObject({ previous_strategies: [previous], feedback: { markedRelevant: ['arxiv:1704.01212'], freeText: 'no surveys' }, marked_papers: { relevant: [], irrelevant: [] } });
  });

  it('sends the marked papers with title, abstract and keywords', async () => {
    const llm = scriptedLlm();
    llm.script.push(() => ({ queries: [{ keywords: ['neural message passing'], synonyms: [] }], excluded_terms: [], year_from: null, year_to: null }));
    const marked = { id: 'arxiv:1704.01212', title: 'Neural message passing for quantum chemistry', abstract: 'Supervised learning on molecules.', keywords: ['method', 'ICML'] };
    const feedback = userFeedback.parse({ markedRelevant: [marked.id] });
    await new LlmStrategyBuilder({ llm, maxTokens: 800 }).build({ intent, previousStrategies: [], feedback, availableSources: ['arxiv'], markedPapers: { relevant: [marked], irrelevant: [] } });
    expect(JSON.parse(llm.calls[0]![1]!.content)).toMatchObject({ marked_papers: { relevant: [marked], irrelevant: [] } });
  });
});
