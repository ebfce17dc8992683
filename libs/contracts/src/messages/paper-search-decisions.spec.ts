import { interpretDecision } from './paper-search-decisions.js';
import { decision, searchStrategy } from './paper-search-model.js';

const strategy = {
  queries: [{ keywords: ['graph neural networks'], booleanQuery: '"graph neural networks"' }],
  sources: ['openalex', 'arxiv'],
  filters: { yearFrom: 2018, yearTo: null },
};

describe('interpretDecision: the decision-semantics table of spec 04', () => {
  describe('checkpoint 1 (strategy confirmation)', () => {
    it('APPROVE proceeds with the proposed strategy', () => {
      expect(interpretDecision('strategy_confirmation', decision.parse({ action: 'approve' }))).toEqual({ kind: 'proceed' });
    });

    it('EDIT validates revisedData as a SearchStrategy and uses it', () => {
      const result = interpretDecision('strategy_confirmation', decision.parse({ action: 'edit', revisedData: strategy }));
      expect(result).toEqual({ kind: 'use_strategy', strategy: searchStrategy.parse(strategy) });
    });

    it('EDIT with an invalid strategy (unknown field, years out of order, no queries) is refused with the reasons', () => {
      const typo = interpretDecision('strategy_confirmation', decision.parse({ action: 'edit', revisedData: { ...strategy, sorces: ['arxiv'] } }));
      expect(typo).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('sorces') });
      const years = interpretDecision('strategy_confirmation', decision.parse({ action: 'edit', revisedData: { ...strategy, filters: { yearFrom: 2024, yearTo: 2020 } } }));
      expect(years).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('filters.yearTo') });
      const empty = interpretDecision('strategy_confirmation', decision.parse({ action: 'edit', revisedData: { ...strategy, queries: [] } }));
      expect(empty).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('queries') });
      expect(interpretDecision('strategy_confirmation', decision.parse({ action: 'edit' }))).toMatchObject({ kind: 'invalid' });
    });

    it('REJECT turns the note into free-text feedback and skips the search of this iteration', () => {
      const result = interpretDecision('strategy_confirmation', decision.parse({ action: 'reject', note: 'only clinical trials' }));
      expect(result).toEqual({ kind: 'iterate', searched: false, feedback: { markedRelevant: [], markedIrrelevant: [], freeText: 'only clinical trials' } });
    });
  });

  describe('checkpoint 2 (result review)', () => {
    it('APPROVE completes; marked papers sent with it are the feedback to accumulate', () => {
      expect(interpretDecision('result_review', decision.parse({ action: 'approve' }))).toEqual({ kind: 'complete', feedback: null });
      const marked = interpretDecision('result_review', decision.parse({ action: 'approve', revisedData: { markedRelevant: ['doi:10.1/a'] } }));
      expect(marked).toEqual({ kind: 'complete', feedback: { markedRelevant: ['doi:10.1/a'], markedIrrelevant: [], freeText: null } });
    });

    it('EDIT validates revisedData as UserFeedback and iterates with it (the note fills an empty free text)', () => {
      const result = interpretDecision(
        'result_review',
        decision.parse({ action: 'edit', revisedData: { markedRelevant: ['a'], markedIrrelevant: ['b'] }, note: 'more on proteins' }),
      );
      expect(result).toEqual({ kind: 'iterate', searched: true, feedback: { markedRelevant: ['a'], markedIrrelevant: ['b'], freeText: 'more on proteins' } });
    });

    it('EDIT whose revisedData is not a UserFeedback is refused', () => {
      expect(interpretDecision('result_review', decision.parse({ action: 'edit', revisedData: strategy }))).toMatchObject({ kind: 'invalid' });
      expect(interpretDecision('result_review', decision.parse({ action: 'edit', revisedData: { markedRelevant: 'a' } }))).toMatchObject({ kind: 'invalid' });
    });

    it('REJECT turns the note into free-text feedback and iterates', () => {
      const result = interpretDecision('result_review', decision.parse({ action: 'reject', note: 'too theoretical' }));
      expect(result).toEqual({ kind: 'iterate', searched: true, feedback: { markedRelevant: [], markedIrrelevant: [], freeText: 'too theoretical' } });
      const withMarks = interpretDecision('result_review', decision.parse({ action: 'reject', note: 'wrong field', revisedData: { markedIrrelevant: ['x'] } }));
      expect(withMarks).toMatchObject({ feedback: { markedIrrelevant: ['x'], freeText: 'wrong field' } });
    });
  });

  it('a decision itself is strict: unknown actions and fields are refused', () => {
    expect(decision.safeParse({ action: 'maybe' }).success).toBe(false);
    expect(decision.safeParse({ action: 'approve', revised_data: {} }).success).toBe(false);
  });
});
