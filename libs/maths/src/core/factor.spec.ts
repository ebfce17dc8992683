import { parseExpression } from './mathjs.js';
import { expandFactorisation, factorisationText, factorUnivariate } from './factor.js';
import { Polynomial } from './polynomial.js';

const poly = (text: string): Polynomial => Polynomial.fromNode(parseExpression(text)!)!;

describe('factoring over the rationals', () => {
  it.each([
    ['x^2 + 5x + 6', '(x + 2)(x + 3)'],
    ['x^5 - x^3', 'x^3(x - 1)(x + 1)'],
    ['(1/2)x^2 - 2', '(1/2)(x - 2)(x + 2)'],
    ['4x^2 - 4x + 1', '(2x - 1)^2'],
    ['x^2 + x + 1', '(x^2 + x + 1)'],
  ])('%j = %j, and multiplies back out', (text, factored) => {
    const p = poly(text);
    const f = factorUnivariate(p, 'x')!;
    expect(factorisationText(f, 'display')).toBe(factored);
    expect(expandFactorisation(f).equals(p)).toBe(true);
  });

  it('does not claim a quartic without rational roots is irreducible', () => {
    expect(factorUnivariate(poly('x^4 + 4'), 'x')).toBeUndefined();
  });
});
