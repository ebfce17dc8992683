import { editedExclusions, MAX_EXCLUDED_TERMS, termsOf } from './boolean-query-terms.js';

describe('the terms of a boolean query typed at checkpoint 1', () => {
  it('keeps a NOT term as an exclusion, never as a required keyword', () => {
    expect(termsOf('x NOT survey')).toEqual({ keywords: ['x'], excluded: ['survey'] });
  });

  it('keeps quoted phrases whole and skips operators and parentheses', () => {
    expect(termsOf('("graph neural network" OR GNN) AND molecule NOT "systematic review"')).toEqual({ keywords: ['graph neural network', 'GNN', 'molecule'], excluded: ['systematic review'] });
  });

  it('falls back to the whole line when it has no term of its own', () => {
    expect(termsOf('()')).toEqual({ keywords: ['()'], excluded: [] });
  });

  it("gathers an edit's exclusions, once each, and never cuts them: it says how many are past the bound", () => {
    expect(editedExclusions(['survey'], ['x NOT Survey NOT review', 'y NOT "systematic review"'])).toEqual({ terms: ['survey', 'review', 'systematic review'], overBy: 0 });
    const many = Array.from({ length: MAX_EXCLUDED_TERMS + 3 }, (_, i) => `t${i}`);
    const { terms, overBy } = editedExclusions(many.slice(0, 10), [`x ${many.slice(10).map((t) => `NOT ${t}`).join(' ')}`]);
    expect(terms).toEqual(many);
    expect(overBy).toBe(3);
  });
});
