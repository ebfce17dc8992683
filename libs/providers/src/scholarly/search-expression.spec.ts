import { excludedTermsOf, matchesExpression, operatorsOf, parseSearchExpression, positiveTerms, SearchExpressionError, withoutExclusions } from './search-expression.js';

describe('the boolean query of a search strategy', () => {
  it('reads phrases, OR groups, AND (explicit or by adjacency) and NOT as AND NOT', () => {
    expect(parseSearchExpression('("graph neural network" OR GNN) AND molecule NOT survey')).toEqual({
      kind: 'and',
      items: [
        { kind: 'or', items: [{ kind: 'term', text: 'graph neural network' }, { kind: 'term', text: 'GNN' }] },
        { kind: 'term', text: 'molecule' },
        { kind: 'not', item: { kind: 'term', text: 'survey' } },
      ],
    });
    expect(parseSearchExpression('a b OR c')).toEqual({
      kind: 'or',
      items: [{ kind: 'and', items: [{ kind: 'term', text: 'a' }, { kind: 'term', text: 'b' }] }, { kind: 'term', text: 'c' }],
    });
  });

  it('rejects unbalanced quotes or parentheses and a query of exclusions only', () => {
    for (const bad of ['"open phrase', '(a OR b', 'a)', 'NOT survey', 'a AND', '']) expect(() => parseSearchExpression(bad)).toThrow(SearchExpressionError);
  });

  it('lists positive and excluded terms and the operators used', () => {
    const e = parseSearchExpression('(x OR y) z NOT "w v"');
    expect(positiveTerms(e)).toEqual(['x', 'y', 'z']);
    expect(excludedTermsOf(e)).toEqual(['w v']);
    expect([...operatorsOf(e)].sort()).toEqual(['AND', 'NOT', 'OR']);
    expect(operatorsOf(parseSearchExpression('x NOT y'))).toEqual(new Set(['NOT']));
    expect(withoutExclusions(e)).toEqual(parseSearchExpression('(x OR y) z'));
  });

  it('matches a text by phrases in order, ignoring case, diacritics and plurals, honouring NOT', () => {
    const e = parseSearchExpression('("graph neural network" OR GNN) AND molecule NOT survey');
    expect(matchesExpression(e, 'Graph Neural Networks for Molecules')).toBe(true);
    expect(matchesExpression(e, 'GNNs on molécules')).toBe(true);
    expect(matchesExpression(e, 'A survey of graph neural networks for molecules')).toBe(false);
    expect(matchesExpression(e, 'Neural graph network for molecules')).toBe(false);
    expect(matchesExpression(e, 'Graph neural networks')).toBe(false);
  });
});
