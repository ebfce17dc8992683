import { termsOf } from './boolean-query-terms.js';

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
});
