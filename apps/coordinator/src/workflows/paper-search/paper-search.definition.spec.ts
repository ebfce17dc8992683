import {
  BuildSearchStrategy,
  CHECKPOINT_DECISION_INPUT,
  DeduplicatePapers,
  InputRefused,
  laneOf,
  OrganisePapers,
  PAPER_SEARCH,
  PAPER_SEARCH_LANE,
  type Paper,
  type PaperCollection,
  PapersDeduplicated,
  PaperSearchIntentParsed,
  PaperSearchStepFailed,
  type PaperSearchView,
  PaperSourcesSearched,
  PapersOrganised,
  PapersScored,
  ParsePaperSearchIntent,
  type ParsedIntent,
  RunEnded,
  ScorePapers,
  type ScoredPaper,
  SearchPaperSources,
  SearchStrategyBuilt,
  type SearchStrategy,
  type SourceReport,
} from '@openpaw/contracts';
import { isAllowed, replayRun, RUN_DEADLINE_TIMER, type ScenarioStep, validateDefinition } from '@openpaw/saga';
import { SagaDriver } from '../testing/saga-driver.js';
import { checkpointIdOf, paperSearchDefinition } from './paper-search.definition.js';
import { PAPER_SEARCH_STATES, PAPER_SEARCH_TRANSITIONS } from './paper-search.data.js';
import { DEFAULT_PAPER_SEARCH_SETTINGS, paperSearchSettingsFromEnv } from './paper-search.settings.js';
import { VIEW_BUDGET_BYTES } from './paper-search.view.js';

const definition = paperSearchDefinition();
const QUERY = 'graph neural networks with attention since 2016';

const intent: ParsedIntent = {
  topic: 'graph neural networks with attention',
  concepts: ['graph neural networks', 'attention'],
  intentType: 'method',
  constraints: { yearFrom: 2016, yearTo: null, language: null, maxResults: 100 },
};

function strategy(keyword: string, sources: SearchStrategy['sources'] = ['library']): SearchStrategy {
  return {
    queries: [{ keywords: [keyword], synonyms: [], booleanQuery: `"${keyword}"` }],
    sources,
    filters: { yearFrom: 2016, yearTo: null, language: null, maxResults: 100 },
    excludedTerms: [],
  };
}

function paper(id: string): Paper {
  return { id, title: `Paper ${id}`, authors: [], year: 2020, venue: null, abstract: null, doi: null, arxivId: null, pmid: null, url: null, pdfUrl: null, citationCount: null, sources: ['library'], sourceIds: [] };
}
function scored(id: string): ScoredPaper {
  return { ...paper(id), relevanceScore: 0.5, relevanceReason: 'shares "attention"', tags: [] };
}
const provenance = { model: 'local/lexical', local: true, method: 'lexical overlap (local stand-in)', costUsd: 0 };
const ok = (count: number): SourceReport => ({ source: 'library', status: 'ok', count, totalAvailable: count, durationMs: 5, error: null });
const failed = (source: SourceReport['source']): SourceReport => ({ source, status: 'failed', count: 0, totalAvailable: null, durationMs: 9, error: { kind: 'server_error', message: 'HTTP 503' } });

function collection(ids: string[], iteration: number, s: SearchStrategy, reports: SourceReport[] = [ok(ids.length)]): PaperCollection {
  return {
    papers: ids.map(scored),
    facets: { byYear: [], byVenue: [], topAuthors: [], themes: [] },
    metadata: {
      query: QUERY,
      strategy: s,
      iteration,
      totalFound: ids.length,
      duplicatesMerged: 0,
      rejectedExcluded: 0,
      sourceReports: reports,
      scoredBy: provenance,
      organisedBy: provenance,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  };
}

type Options = { strategyCheckpoint?: boolean; autoApprove?: boolean; maxIterations?: number; sources?: string[] };

function started(options: Options = {}): SagaDriver {
  const d = new SagaDriver(definition);
  d.start({ query: QUERY, options });
  return d;
}

const view = (step: ScenarioStep): PaperSearchView => step.view() as unknown as PaperSearchView;
const dataOf = (d: SagaDriver): PaperSearchView => definition.view(d.s.run as never) as unknown as PaperSearchView;

function parsed(d: SagaDriver): ScenarioStep {
  return d.reply(ParsePaperSearchIntent, PaperSearchIntentParsed, { intent, provenance });
}
function built(d: SagaDriver, iteration: number, s = strategy(`query ${iteration}`)): ScenarioStep {
  return d.reply(BuildSearchStrategy, SearchStrategyBuilt, { iteration, strategy: s, diff: null, provenance });
}
/** search → dedup → score → organise, answered with `ids` (the organised collection); returns the organise reply's step. */
function pipeline(d: SagaDriver, iteration: number, ids: string[], reports: SourceReport[] = [ok(ids.length)]): ScenarioStep {
  const s = d.s.run.data as { strategy: SearchStrategy };
  d.reply(SearchPaperSources, PaperSourcesSearched, { iteration, papers: ids.map(paper), sourceReports: reports });
  d.reply(DeduplicatePapers, PapersDeduplicated, { iteration, papers: ids.map(paper), duplicatesMerged: 0, rejectedExcluded: 0 });
  d.reply(ScorePapers, PapersScored, { iteration, papers: ids.map(scored), provenance });
  return d.reply(OrganisePapers, PapersOrganised, { iteration, collection: collection(ids, iteration, s.strategy, reports) });
}
function decide(d: SagaDriver, decision: Record<string, unknown>, checkpointId = dataOf(d).checkpoint?.checkpointId ?? 'none', userId = d.userId): ScenarioStep {
  return d.when({ kind: 'human', userId, inputType: CHECKPOINT_DECISION_INPUT, payload: { checkpointId, decision } });
}
/** A run at checkpoint 1 of iteration 1. */
function atStrategyCheckpoint(options: Options = {}): SagaDriver {
  const d = started(options);
  parsed(d);
  built(d, 1);
  return d;
}
/** A run at checkpoint 2 of iteration 1, its collection holding `ids`. */
function atResultReview(ids = ['a', 'b', 'c'], options: Options = {}): SagaDriver {
  const d = atStrategyCheckpoint(options);
  decide(d, { action: 'approve' });
  pipeline(d, 1, ids);
  return d;
}
const refusal = (step: ScenarioStep) => step.sent(InputRefused)[0];

describe('paper_search', () => {
  describe('the transition table', () => {
    const expected: Record<string, readonly string[]> = { ...PAPER_SEARCH_TRANSITIONS };
    it.each(PAPER_SEARCH_STATES.flatMap((from) => PAPER_SEARCH_STATES.map((to) => [from, to] as const)))('%s -> %s is allowed exactly when the table lists it', (from, to) => {
      expect(isAllowed(definition, from, to)).toBe(expected[from]?.includes(to) ?? false);
    });

    it("is derived from the rows and equals the spec's pipeline table", () => {
      expect(definition.transitions).toEqual(PAPER_SEARCH_TRANSITIONS);
      expect(() => validateDefinition(definition)).not.toThrow();
    });

    it('sends every skill on the research service papersearch lane', () => {
      for (const command of [ParsePaperSearchIntent, BuildSearchStrategy, SearchPaperSources, DeduplicatePapers, ScorePapers, OrganisePapers]) {
        expect(laneOf(command)).toBe(PAPER_SEARCH_LANE);
      }
    });
  });

  describe('given a query', () => {
    it('when started, then PARSING_INTENT with ParsePaperSearchIntent, a step timeout and the stretch deadline', () => {
      const d = new SagaDriver(definition);
      const step = d.start({ query: QUERY });
      expect(step.state).toBe('PARSING_INTENT');
      expect(step.sent(ParsePaperSearchIntent)).toEqual([{ runId: d.runId, query: QUERY }]);
      expect(d.pendingTimers()).toEqual([RUN_DEADLINE_TIMER, 'resend:parse_intent:1:1']);
      expect(view(step)).toMatchObject({ status: 'running', options: { strategyCheckpoint: true, autoApprove: false, maxIterations: 5, sources: ['library', 'openalex', 'arxiv', 'crossref'] } });
    });

    it.each([
      ['no query', {}],
      ['an unknown option', { query: QUERY, options: { autoAprove: true } }],
      ['too many iterations', { query: QUERY, options: { maxIterations: 50 } }],
    ])('when started with %s, then refused', (_, input) => {
      expect(refusal(new SagaDriver(definition).start(input))).toMatchObject({ reason: 'invalid_input' });
    });

    it('when the intent is parsed, then BUILDING_STRATEGY for iteration 1 with no history, over the chosen sources', () => {
      const d = started({ sources: ['openalex', 'arxiv'] });
      const step = parsed(d);
      expect(step.state).toBe('BUILDING_STRATEGY');
      expect(step.sent(BuildSearchStrategy)).toEqual([
        { runId: d.runId, iteration: 1, intent, previousStrategies: [], feedback: null, availableSources: ['openalex', 'arxiv'], markedPapers: { relevant: [], irrelevant: [] } },
      ]);
    });

    it('when the strategy is built, then the run waits at checkpoint 1 with the intent, strategy and diff, and no deadline', () => {
      const d = started();
      parsed(d);
      const step = built(d, 1);
      expect(step.state).toBe('AWAITING_STRATEGY_CONFIRMATION');
      expect(view(step)).toMatchObject({
        status: 'waiting',
        iteration: 1,
        checkpoint: { kind: 'strategy_confirmation', checkpointId: checkpointIdOf({ id: d.runId, attemptNo: 1 }, 'strategy_confirmation', 1), runId: d.runId, iteration: 1, payload: { intent, strategy: strategy('query 1'), iteration: 1, diff: null } },
      });
      expect(d.pendingTimers()).toEqual([]);
    });

    it('checkpoint 1 says where its strategy came from: the local rules, or the planner model that built it', () => {
      const d = started();
      parsed(d);
      const local = built(d, 1);
      expect(view(local).checkpoint).toMatchObject({ payload: { origin: { origin: 'local_rules', model: 'local/lexical' } } });
      const m = started();
      parsed(m);
      const planned = m.reply(BuildSearchStrategy, SearchStrategyBuilt, { iteration: 1, strategy: strategy('query 1'), diff: null, provenance: { model: 'openai/gpt-4o-mini', local: false, method: 'LLM planner', costUsd: 0.001 } });
      expect(view(planned).checkpoint).toMatchObject({ payload: { origin: { origin: 'planner_model', model: 'openai/gpt-4o-mini', method: 'LLM planner' } } });
    });
  });

  describe('decision semantics at checkpoint 1 (strategy confirmation)', () => {
    it('given checkpoint 1, when APPROVE, then SEARCHING with the proposed strategy', () => {
      const d = atStrategyCheckpoint();
      const step = decide(d, { action: 'approve' });
      expect(step.state).toBe('SEARCHING');
      // The papers found come back stored, by reference (claim check), never capped to one message.
      expect(step.sent(SearchPaperSources)).toEqual([{ runId: d.runId, iteration: 1, userId: d.userId, strategy: strategy('query 1'), papersByReference: true }]);
      expect(view(step).checkpoint).toBeNull();
      expect(d.pendingTimers()).toEqual([RUN_DEADLINE_TIMER, 'resend:search_sources:1:1']);
    });

    it("given checkpoint 1, when EDIT with a valid SearchStrategy, then SEARCHING with the person's strategy", () => {
      const d = atStrategyCheckpoint();
      const edited = strategy('graph attention', ['openalex']);
      const step = decide(d, { action: 'edit', revisedData: edited });
      expect(step.state).toBe('SEARCHING');
      expect(step.sent(SearchPaperSources)[0]?.strategy).toEqual(edited);
      // The iteration's record says the strategy searched was the person's, not the builder's.
      pipeline(d, 1, ['a']);
      const next = decide(d, { action: 'reject', note: 'more' });
      expect(view(next).iterations[0]?.strategyOrigin).toEqual({ origin: 'user_edit', model: null, method: 'edited by you at checkpoint 1' });
    });

    it('given checkpoint 1, when EDIT with data that is not a SearchStrategy, then refused naming the field, and still waiting', () => {
      const d = atStrategyCheckpoint();
      const step = decide(d, { action: 'edit', revisedData: { ...strategy('x'), sorces: ['arxiv'] } });
      expect(step.outcome).toBe('refused');
      expect(refusal(step)).toMatchObject({ reason: 'invalid_input', detail: expect.stringContaining('sorces') });
      expect(d.s.run.state).toBe('AWAITING_STRATEGY_CONFIRMATION');
    });

    it('given checkpoint 1, when REJECT with a note, then the next iteration is built from the note as free-text feedback, nothing searched', () => {
      const d = atStrategyCheckpoint();
      const step = decide(d, { action: 'reject', note: 'only clinical trials' });
      expect(step.state).toBe('BUILDING_STRATEGY');
      expect(step.sent(SearchPaperSources)).toEqual([]);
      expect(step.sent(BuildSearchStrategy)).toEqual([
        {
          runId: d.runId,
          iteration: 2,
          intent,
          previousStrategies: [strategy('query 1')],
          feedback: { markedRelevant: [], markedIrrelevant: [], freeText: 'only clinical trials' },
          availableSources: ['library', 'openalex', 'arxiv', 'crossref'],
          markedPapers: { relevant: [], irrelevant: [] },
        },
      ]);
      expect(view(step).iterations).toEqual([{ iteration: 1, resultCount: null, decision: 'reject', note: 'only clinical trials', strategyOrigin: { origin: 'local_rules', model: 'local/lexical', method: 'lexical overlap (local stand-in)' } }]);
    });
  });

  describe('decision semantics at checkpoint 2 (result review)', () => {
    it('given checkpoint 2, when organised, then it shows the collection and the accumulated papers', () => {
      const d = atResultReview(['a', 'b']);
      expect(d.s.run.state).toBe('AWAITING_RESULT_REVIEW');
      expect(dataOf(d)).toMatchObject({ status: 'waiting', checkpoint: { kind: 'result_review', iteration: 1, payload: { iteration: 1, accumulatedPapers: [], collection: { papers: [{ id: 'a' }, { id: 'b' }] } } } });
      expect(d.pendingTimers()).toEqual([]);
    });

    it('given checkpoint 2, when APPROVE, then COMPLETED with the collection', () => {
      const d = atResultReview(['a', 'b']);
      const step = decide(d, { action: 'approve' });
      expect(step.state).toBe('COMPLETED');
      expect(view(step)).toMatchObject({ status: 'completed', completion: 'approved', checkpoint: null, result: { papers: [{ id: 'a' }, { id: 'b' }] } });
      // The research service hears the end (its stored lists are swept after their retention).
      expect(step.sent(RunEnded)).toEqual([{ runId: d.s.run.id, workflowType: PAPER_SEARCH, state: 'COMPLETED', reason: 'approved' }]);
      expect(view(step).iterations).toEqual([{ iteration: 1, resultCount: 2, decision: 'approve', note: null, strategyOrigin: { origin: 'local_rules', model: 'local/lexical', method: 'lexical overlap (local stand-in)' } }]);
    });

    it('given checkpoint 2, when EDIT with a valid UserFeedback, then the next iteration is built from it; relevant papers accumulate', () => {
      const d = atResultReview(['a', 'b', 'c']);
      const step = decide(d, { action: 'edit', revisedData: { markedRelevant: ['a'], markedIrrelevant: ['c'], freeText: 'more on proteins' } });
      expect(step.state).toBe('BUILDING_STRATEGY');
      expect(step.sent(BuildSearchStrategy)[0]).toMatchObject({ iteration: 2, previousStrategies: [strategy('query 1')], feedback: { markedRelevant: ['a'], markedIrrelevant: ['c'], freeText: 'more on proteins' } });
      // The builders read what the marked papers are about, not bare ids.
      expect(step.sent(BuildSearchStrategy)[0]?.markedPapers).toEqual({
        relevant: [{ id: 'a', title: 'Paper a', abstract: null, keywords: [] }],
        irrelevant: [{ id: 'c', title: 'Paper c', abstract: null, keywords: [] }],
      });
      expect(view(step).accumulatedPapers.map((p) => p.id)).toEqual(['a']);
    });

    it('given checkpoint 2, when EDIT with data that is not a UserFeedback, then refused naming the field, and still waiting', () => {
      const d = atResultReview();
      const step = decide(d, { action: 'edit', revisedData: { markedRelevant: 'a' } });
      expect(refusal(step)).toMatchObject({ reason: 'invalid_input', detail: expect.stringContaining('markedRelevant') });
      expect(d.s.run.state).toBe('AWAITING_RESULT_REVIEW');
    });

    it('given checkpoint 2, when REJECT with a note, then the note is free-text feedback and the search iterates', () => {
      const d = atResultReview();
      const step = decide(d, { action: 'reject', note: 'too theoretical' });
      expect(step.state).toBe('BUILDING_STRATEGY');
      expect(step.sent(BuildSearchStrategy)[0]?.feedback).toEqual({ markedRelevant: [], markedIrrelevant: [], freeText: 'too theoretical' });
    });

    it('given a malformed decision (unknown action, no checkpoint id), then refused with the field', () => {
      const d = atResultReview();
      expect(refusal(decide(d, { action: 'maybe' }))).toMatchObject({ detail: expect.stringContaining('decision.action') });
      expect(refusal(d.when({ kind: 'human', userId: d.userId, inputType: CHECKPOINT_DECISION_INPUT, payload: { decision: { action: 'approve' } } }))).toMatchObject({
        detail: expect.stringContaining('checkpointId'),
      });
    });
  });

  describe('the iteration model', () => {
    it('given iteration 2, then its strategy checkpoint has a new id and a decision for the stale one is refused', () => {
      const d = atResultReview(['a']);
      const first = dataOf(d).checkpoint?.checkpointId ?? '';
      decide(d, { action: 'reject', note: 'newer work' });
      built(d, 2);
      const second = dataOf(d).checkpoint?.checkpointId;
      expect(second).toBe(checkpointIdOf({ id: d.runId, attemptNo: 1 }, 'strategy_confirmation', 2));
      const stale = decide(d, { action: 'approve' }, first);
      expect(stale.outcome).toBe('refused');
      expect(refusal(stale)).toMatchObject({ reason: 'invalid_input', detail: expect.stringContaining(`stale checkpoint ${first}`) });
      expect(d.s.run.state).toBe('AWAITING_STRATEGY_CONFIRMATION');
    });

    it('accumulates papers marked relevant across iterations into the approved collection, and never shows rejected papers again', () => {
      const d = atResultReview(['a', 'b', 'c']);
      decide(d, { action: 'edit', revisedData: { markedRelevant: ['a'], markedIrrelevant: ['b'] } });
      built(d, 2);
      decide(d, { action: 'approve' });
      d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 2, papers: ['b', 'd'].map(paper), sourceReports: [ok(2)] });
      // The rejected paper is sent to dedup to be left out.
      expect(d.s.run.state).toBe('DEDUPLICATING');
      const dedup = d.commandCount(DeduplicatePapers);
      expect(dedup).toBe(2);
      d.reply(DeduplicatePapers, PapersDeduplicated, { iteration: 2, papers: [paper('d')], duplicatesMerged: 0, rejectedExcluded: 1 });
      d.reply(ScorePapers, PapersScored, { iteration: 2, papers: [scored('d')], provenance });
      const organised = d.reply(OrganisePapers, PapersOrganised, { iteration: 2, collection: collection(['d'], 2, strategy('query 2')) });
      expect(view(organised).checkpoint).toMatchObject({ kind: 'result_review', payload: { accumulatedPapers: [{ id: 'a' }] } });
      const done = decide(d, { action: 'approve', revisedData: { markedRelevant: ['d'] } });
      expect(view(done)).toMatchObject({ completion: 'approved', accumulatedPapers: [{ id: 'a' }, { id: 'd' }] });
      expect(view(done).result?.papers.map((p) => p.id)).toEqual(['d', 'a']);
    });

    it('sends the rejected ids of every earlier iteration to dedup', () => {
      const d = atResultReview(['a', 'b']);
      decide(d, { action: 'edit', revisedData: { markedIrrelevant: ['b'] } });
      built(d, 2);
      decide(d, { action: 'approve' });
      const step = d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 2, papers: ['b', 'd'].map(paper), sourceReports: [ok(2)] });
      const identity = (id: string) => ({ id, title: `Paper ${id}`, firstAuthor: null, year: 2020, doi: null, arxivId: null, pmid: null });
      // The alias table: the rejected paper, then the last collection shown, each once.
      expect(step.sent(DeduplicatePapers)).toEqual([{ runId: d.runId, iteration: 2, papers: [paper('b'), paper('d')], excludePaperIds: ['b'], knownPapers: [identity('b'), identity('a')], papersByReference: true }]);
    });

    it('sends kept papers first in the alias table, so a paper found again keeps its id and is listed once', () => {
      const d = atResultReview(['a', 'b']);
      decide(d, { action: 'edit', revisedData: { markedRelevant: ['b'] } });
      built(d, 2);
      decide(d, { action: 'approve' });
      const step = d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 2, papers: ['d'].map(paper), sourceReports: [ok(1)] });
      expect(step.sent(DeduplicatePapers)[0]?.knownPapers?.map((k) => k.id)).toEqual(['b', 'a']);
    });

    it('given max_iterations of 2, when checkpoint 2 rejects twice, then COMPLETED with the last collection', () => {
      const d = atResultReview(['a'], { maxIterations: 2 });
      decide(d, { action: 'reject', note: 'no' });
      built(d, 2);
      decide(d, { action: 'approve' });
      pipeline(d, 2, ['x', 'y']);
      const step = decide(d, { action: 'reject', note: 'still no' });
      expect(step.state).toBe('COMPLETED');
      expect(view(step)).toMatchObject({ completion: 'max_iterations', result: { metadata: { iteration: 2 }, papers: [{ id: 'x' }, { id: 'y' }] } });
      expect(d.commandCount(BuildSearchStrategy)).toBe(2);
    });

    it('given max_iterations of 2, when the last review keeps and rejects papers, then the result holds every kept paper and none rejected (ADR 0026)', () => {
      const d = atResultReview(['a', 'b'], { maxIterations: 2 });
      decide(d, { action: 'edit', revisedData: { markedRelevant: ['a'] } });
      built(d, 2);
      decide(d, { action: 'approve' });
      pipeline(d, 2, ['x', 'y', 'z']);
      const step = decide(d, { action: 'edit', revisedData: { markedRelevant: ['y'], markedIrrelevant: ['z'] } });
      expect(step.state).toBe('COMPLETED');
      expect(view(step)).toMatchObject({ completion: 'max_iterations', accumulatedPapers: [{ id: 'a' }, { id: 'y' }] });
      expect(view(step).result?.papers.map((p) => p.id)).toEqual(['x', 'y', 'a']);
    });

    it('given a run paused before ADR 0026 (its data without rejectedPapers or strategyOrigin), then it resumes on this code: rejected papers leave by id, kept ones stay, and it completes', () => {
      const d = atResultReview(['a', 'b'], { maxIterations: 2 });
      decide(d, { action: 'edit', revisedData: { markedRelevant: ['a'], markedIrrelevant: ['b'] } });
      built(d, 2);
      // As the earlier version stored it at checkpoint 1 of iteration 2: none of the fields ADR 0026 and later added.
      const stored = d.s.run.data as Record<string, unknown>;
      delete stored['rejectedPapers'];
      delete stored['strategyOrigin'];
      expect(dataOf(d).checkpoint?.kind).toBe('strategy_confirmation');
      decide(d, { action: 'approve' });
      const searched = d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 2, papers: ['b', 'c'].map(paper), sourceReports: [ok(2)] });
      const identity = (id: string) => ({ id, title: `Paper ${id}`, firstAuthor: null, year: 2020, doi: null, arxivId: null, pmid: null });
      // Without rejectedPapers, the rejected paper is known only as one of the last collection shown, and excluded by its id, as before the ADR.
      expect(searched.sent(DeduplicatePapers)).toEqual([{ runId: d.runId, iteration: 2, papers: [paper('b'), paper('c')], excludePaperIds: ['b'], knownPapers: [identity('a'), identity('b')], papersByReference: true }]);
      d.reply(DeduplicatePapers, PapersDeduplicated, { iteration: 2, papers: [paper('c')], duplicatesMerged: 0, rejectedExcluded: 1 });
      d.reply(ScorePapers, PapersScored, { iteration: 2, papers: [scored('c')], provenance });
      d.reply(OrganisePapers, PapersOrganised, { iteration: 2, collection: collection(['c'], 2, strategy('query 2')) });
      const step = decide(d, { action: 'approve' });
      expect(step.state).toBe('COMPLETED');
      expect(view(step).result?.papers.map((p) => p.id).sort()).toEqual(['a', 'c']);
    });

    it('given papers stored whole (claim check), then a result at max_iterations keeps the stored list for exports unless a paper of it was rejected', () => {
      const wholePapers = { blobKey: 'paper-search/run/whole.json', count: 3, cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } };
      for (const [markedIrrelevant, keepsStoredList] of [
        [[], true],
        [['z'], false],
      ] as const) {
        const d = atStrategyCheckpoint({ maxIterations: 1 });
        decide(d, { action: 'approve' });
        const ids = ['x', 'y', 'z'];
        d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 1, papers: ids.map(paper), sourceReports: [ok(3)] });
        d.reply(DeduplicatePapers, PapersDeduplicated, { iteration: 1, papers: ids.map(paper), duplicatesMerged: 0, rejectedExcluded: 0 });
        d.reply(ScorePapers, PapersScored, { iteration: 1, papers: ids.map(scored), provenance });
        d.reply(OrganisePapers, PapersOrganised, { iteration: 1, collection: { ...collection(ids, 1, strategy('query 1')), wholePapers } });
        const step = decide(d, { action: 'edit', revisedData: { markedIrrelevant: [...markedIrrelevant] } });
        expect(step.state).toBe('COMPLETED');
        expect(view(step).result?.wholePapers).toEqual(keepsStoredList ? wholePapers : undefined);
      }
    });

    it('given the default of 5 iterations, when every strategy is rejected, then COMPLETED after the fifth with no collection', () => {
      const d = atStrategyCheckpoint();
      for (let iteration = 1; iteration <= 4; iteration += 1) {
        expect(decide(d, { action: 'reject', note: `not ${iteration}` }).state).toBe('BUILDING_STRATEGY');
        built(d, iteration + 1);
      }
      const step = decide(d, { action: 'reject', note: 'not 5' });
      expect(step.state).toBe('COMPLETED');
      expect(view(step)).toMatchObject({ completion: 'max_iterations', result: null, iteration: 5 });
      expect(view(step).iterations).toHaveLength(5);
    });
  });

  describe('options', () => {
    it('given auto_approve, then one automated iteration with no checkpoint, completed as organised', () => {
      const d = started({ autoApprove: true });
      parsed(d);
      const searching = built(d, 1);
      expect(searching.state).toBe('SEARCHING');
      const step = pipeline(d, 1, ['a', 'b']);
      expect(step.state).toBe('COMPLETED');
      expect(view(step)).toMatchObject({ completion: 'auto_approved', checkpoint: null, result: { papers: [{ id: 'a' }, { id: 'b' }] }, iterations: [{ decision: 'auto_approve' }] });
      expect(d.commandCount(BuildSearchStrategy)).toBe(1);
    });

    it('given the strategy checkpoint disabled, then checkpoint 1 is skipped and checkpoint 2 still waits', () => {
      const d = started({ strategyCheckpoint: false });
      parsed(d);
      expect(built(d, 1).state).toBe('SEARCHING');
      expect(pipeline(d, 1, ['a']).state).toBe('AWAITING_RESULT_REVIEW');
    });
  });

  describe('edge cases', () => {
    it('given empty search results, then the pipeline continues to checkpoint 2 with an empty collection', () => {
      const d = atStrategyCheckpoint();
      decide(d, { action: 'approve' });
      const step = pipeline(d, 1, []);
      expect(step.state).toBe('AWAITING_RESULT_REVIEW');
      expect(view(step).checkpoint).toMatchObject({ payload: { collection: { papers: [] } } });
    });

    it('given papers stored by reference (claim check), then each next command carries the reference, not the papers, and the total counts them', () => {
      const d = atStrategyCheckpoint();
      decide(d, { action: 'approve' });
      const ref = (n: number) => ({ blobKey: `paper-search/${d.runId}/set-${n}.json`, count: n });
      const searched = d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 1, papers: [], papersRef: ref(600), sourceReports: [ok(600)] });
      expect(searched.sent(DeduplicatePapers)).toEqual([expect.objectContaining({ papers: [], papersRef: ref(600), papersByReference: true })]);
      expect(searched.applied.logs.find((l) => l.stepName === 'sources_reported')?.payload).toMatchObject({ found: 600 });
      const deduplicated = d.reply(DeduplicatePapers, PapersDeduplicated, { iteration: 1, papers: [], papersRef: ref(550), duplicatesMerged: 50, rejectedExcluded: 0 });
      expect(deduplicated.sent(ScorePapers)).toEqual([expect.objectContaining({ papers: [], papersRef: ref(550), papersByReference: true })]);
      const scoredStep = d.reply(ScorePapers, PapersScored, { iteration: 1, papers: [], papersRef: ref(550), provenance });
      expect(scoredStep.sent(OrganisePapers)).toEqual([expect.objectContaining({ papers: [], papersRef: ref(550), totalFound: 600, duplicatesMerged: 50 })]);
    });

    it('given a reply with its papers inline (a research service from before the claim check), then the next command carries them inline', () => {
      const d = atStrategyCheckpoint();
      decide(d, { action: 'approve' });
      const searched = d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 1, papers: ['a', 'b'].map(paper), sourceReports: [ok(2)] });
      const sent = searched.sent(DeduplicatePapers)[0]!;
      expect(sent.papers.map((p) => p.id)).toEqual(['a', 'b']);
      expect(sent.papersRef).toBeUndefined();
    });

    it('given every source failing, then the same: checkpoint 2 with the failures in the collection metadata', () => {
      const d = atStrategyCheckpoint();
      decide(d, { action: 'approve' });
      const reports = [failed('openalex'), failed('arxiv')];
      const searched = d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 1, papers: [], sourceReports: reports });
      expect(searched.state).toBe('DEDUPLICATING');
      expect(searched.steps()).toContain('sources_reported');
      d.reply(DeduplicatePapers, PapersDeduplicated, { iteration: 1, papers: [], duplicatesMerged: 0, rejectedExcluded: 0 });
      d.reply(ScorePapers, PapersScored, { iteration: 1, papers: [], provenance });
      expect(d.s.run.state).toBe('ORGANISING');
      expect(d.s.run.data).toMatchObject({ pipeline: { found: { sourceReports: reports } } });
      const step = d.reply(OrganisePapers, PapersOrganised, { iteration: 1, collection: collection([], 1, strategy('query 1'), reports) });
      expect(step.state).toBe('AWAITING_RESULT_REVIEW');
      expect(view(step).checkpoint).toMatchObject({ payload: { collection: { metadata: { sourceReports: reports } } } });
    });

    it('given the intent parser failing, then FAILED with the reason', () => {
      const d = started();
      const step = d.reply(ParsePaperSearchIntent, PaperSearchStepFailed, { step: 'parse_intent', errorCode: 'invalid_output', retryable: false, detail: 'no concepts in the answer' });
      expect(step.state).toBe('FAILED');
      expect(view(step)).toMatchObject({ status: 'failed', error: { step: 'parse_intent', code: 'invalid_output', detail: 'parse_intent: no concepts in the answer' } });
      expect(step.sent(RunEnded)).toEqual([{ runId: d.s.run.id, workflowType: PAPER_SEARCH, state: 'FAILED', reason: 'invalid_output' }]);
    });

    it('given a retryable parser failure, then retried with backoff, and FAILED with the reason once retries are used', () => {
      const d = started();
      const fail = () => d.reply(ParsePaperSearchIntent, PaperSearchStepFailed, { step: 'parse_intent', errorCode: 'llm_unavailable', retryable: true, detail: 'HTTP 503' });
      for (let retry = 1; retry <= DEFAULT_PAPER_SEARCH_SETTINGS.retries; retry += 1) {
        expect(fail().state).toBe('PARSING_INTENT');
        expect(d.fire('retry:parse_intent:1').sent(ParsePaperSearchIntent)).toHaveLength(1);
      }
      expect(d.commandCount(ParsePaperSearchIntent)).toBe(DEFAULT_PAPER_SEARCH_SETTINGS.retries + 1);
      const step = fail();
      expect(step.state).toBe('FAILED');
      expect(view(step).error).toMatchObject({ code: 'llm_unavailable', detail: expect.stringContaining('retries exhausted') });
    });

    it('given a step timing out, then retried, then FAILED', () => {
      const d = atStrategyCheckpoint();
      decide(d, { action: 'approve' });
      for (let retry = 1; retry <= DEFAULT_PAPER_SEARCH_SETTINGS.retries; retry += 1) {
        d.when({ kind: 'timer', name: `timeout:search_sources:1:${retry}`, payload: {} });
        d.fire('retry:search_sources:1');
      }
      const step = d.when({ kind: 'timer', name: `timeout:search_sources:1:${DEFAULT_PAPER_SEARCH_SETTINGS.retries + 1}`, payload: {} });
      expect(step.state).toBe('FAILED');
      expect(view(step).error).toMatchObject({ step: 'search_sources', code: 'timeout' });
    });

    it("given the machine's part overrunning the stretch deadline, then FAILED with deadline_exceeded", () => {
      const d = started();
      parsed(d);
      const step = d.fire(RUN_DEADLINE_TIMER);
      expect(step.state).toBe('FAILED');
      expect(view(step).error).toMatchObject({ code: 'deadline_exceeded' });
    });

    it('given a run waiting at checkpoint 2 for days, then the decision still applies', () => {
      const d = atResultReview(['a']);
      d.advance(5 * 24 * 60 * 60 * 1000);
      expect(decide(d, { action: 'approve' }).state).toBe('COMPLETED');
    });

    it('given a decision while the run works, then refused: no checkpoint is open', () => {
      const d = atStrategyCheckpoint();
      const id = dataOf(d).checkpoint?.checkpointId;
      decide(d, { action: 'approve' });
      const step = decide(d, { action: 'approve' }, id);
      expect(refusal(step)).toMatchObject({ reason: 'invalid_input', detail: 'no checkpoint is open: the run is SEARCHING' });
    });

    it('given a run waiting at a checkpoint, when its owner cancels, then CANCELLED and no decision applies any more', () => {
      const d = atResultReview();
      const id = dataOf(d).checkpoint?.checkpointId;
      const cancelled = d.cancel();
      expect(cancelled.state).toBe('CANCELLED');
      expect(view(cancelled)).toMatchObject({ status: 'cancelled', checkpoint: null });
      expect(cancelled.sent(RunEnded)).toEqual([{ runId: d.s.run.id, workflowType: PAPER_SEARCH, state: 'CANCELLED', reason: 'cancelled' }]);
      expect(refusal(decide(d, { action: 'approve' }, id))).toMatchObject({ reason: 'terminal' });
    });

    it("given another user's decision, then refused as not the owner", () => {
      const d = atResultReview();
      expect(refusal(decide(d, { action: 'approve' }, undefined, 'someone-else'))).toMatchObject({ reason: 'not_owner' });
    });

    it('given a reply of an earlier iteration, then ignored', () => {
      const d = atResultReview(['a']);
      const firstBuild = d.commandId(BuildSearchStrategy);
      decide(d, { action: 'reject', note: 'again' });
      const stale = d.event(SearchStrategyBuilt, { runId: d.runId, commandId: firstBuild, iteration: 1, strategy: strategy('old'), diff: null, provenance });
      expect(stale.outcome).toBe('ignored');
    });
  });

  it('given papers too large for one message together, then the view shortens them (and says so), the run keeps them whole', () => {
    const long = (id: string): ScoredPaper => ({ ...scored(id), abstract: 'a'.repeat(1_500), relevanceReason: 'r'.repeat(1_000), title: `Paper ${id} ${'t'.repeat(300)}` });
    const ids = Array.from({ length: 200 }, (_, i) => `p${i}`);
    const d = atStrategyCheckpoint();
    decide(d, { action: 'approve' });
    d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 1, papers: ids.map(paper), sourceReports: [ok(200)] });
    d.reply(DeduplicatePapers, PapersDeduplicated, { iteration: 1, papers: ids.map(paper), duplicatesMerged: 0, rejectedExcluded: 0 });
    d.reply(ScorePapers, PapersScored, { iteration: 1, papers: ids.map(long), provenance });
    const big: PaperCollection = { ...collection([], 1, strategy('query 1')), papers: ids.map(long) };
    const small = d.reply(OrganisePapers, PapersOrganised, { iteration: 1, collection: big });
    expect(view(small).papersTrimmed).toBe(false);
    // Every paper kept: the next checkpoint shows them twice over (collection and accumulated).
    decide(d, { action: 'edit', revisedData: { markedRelevant: ids } });
    built(d, 2);
    decide(d, { action: 'approve' });
    d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 2, papers: ids.map(paper), sourceReports: [ok(200)] });
    d.reply(DeduplicatePapers, PapersDeduplicated, { iteration: 2, papers: ids.map(paper), duplicatesMerged: 0, rejectedExcluded: 0 });
    d.reply(ScorePapers, PapersScored, { iteration: 2, papers: ids.map(long), provenance });
    const step = d.reply(OrganisePapers, PapersOrganised, { iteration: 2, collection: { ...big, metadata: { ...big.metadata, iteration: 2 } } });
    const shown = view(step);
    expect(shown.papersTrimmed).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(shown))).toBeLessThanOrEqual(VIEW_BUDGET_BYTES);
    expect(shown.checkpoint).toMatchObject({ payload: { collection: { papers: expect.arrayContaining([expect.objectContaining({ id: 'p0', abstract: null, relevanceReason: '' })]) } } });
    expect((d.s.run.data as { accumulated: ScoredPaper[] }).accumulated[0]?.abstract).toHaveLength(1_500);
  });

  it('replays a two-iteration run from its step log', () => {
    const d = atResultReview(['a', 'b']);
    decide(d, { action: 'edit', revisedData: { markedRelevant: ['a'] } });
    built(d, 2);
    decide(d, { action: 'approve' });
    pipeline(d, 2, ['c']);
    decide(d, { action: 'approve' });
    expect(replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: d.userId, parentRunId: null }, d.logs)).toEqual({ ok: true, finalState: 'COMPLETED', mismatches: [] });
  });

  it('reads its settings from OPENPAW_PAPER_SEARCH_JSON, part by part', () => {
    const settings = paperSearchSettingsFromEnv({ OPENPAW_PAPER_SEARCH_JSON: JSON.stringify({ timeoutsMs: { score: 5 }, defaultSources: ['library', 'openalex'] }) });
    expect(settings.timeoutsMs).toEqual({ ...DEFAULT_PAPER_SEARCH_SETTINGS.timeoutsMs, score: 5 });
    expect(settings.defaultSources).toEqual(['library', 'openalex']);
    expect(() => paperSearchSettingsFromEnv({ OPENPAW_PAPER_SEARCH_JSON: JSON.stringify({ retries: -1 }) })).toThrow(/retries/);
  });

  describe('no silent truncation', () => {
    it('what the limits cut in the search and the scoring reaches the organiser, and totalFound counts the papers left out', () => {
      const d = atStrategyCheckpoint();
      decide(d, { action: 'approve' });
      const ids = ['a', 'b'];
      d.reply(SearchPaperSources, PaperSourcesSearched, { iteration: 1, papers: ids.map(paper), sourceReports: [ok(2)], cuts: { papersLeftOut: 40, abstractsShortened: 3, authorListsShortened: 1 } });
      d.reply(DeduplicatePapers, PapersDeduplicated, { iteration: 1, papers: ids.map(paper), duplicatesMerged: 0, rejectedExcluded: 0 });
      const step = d.reply(ScorePapers, PapersScored, { iteration: 1, papers: ids.map(scored), provenance, cuts: { papersLeftOut: 0, abstractsShortened: 2, authorListsShortened: 0 } });
      expect(step.sent(OrganisePapers)).toEqual([expect.objectContaining({ totalFound: 42, cuts: { papersLeftOut: 40, abstractsShortened: 5, authorListsShortened: 1 } })]);
    });
  });
});

