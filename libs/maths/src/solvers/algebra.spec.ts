import { solveProblem } from '../engine.js';
import type { EngineSolution } from '../types.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

function solved(text: string): EngineSolution {
  const outcome = solveProblem(text);
  if (!outcome.solved) throw new Error(`declined: ${outcome.reason}`);
  return outcome;
}

describe('polynomials and rational expressions', () => {
  it.each([
    ['Expand (x + 1)^3', 'x^3 + 3x^2 + 3x + 1'],
    ['Expand (2x - 3)(x + 4)', '2x^2 + 5x - 12'],
    ['Multiply out (a + b)^2', 'a^2 + 2ab + b^2'],
  ])('expands %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'polynomial', finalAnswer: answer });
  });

  it.each([
    ['Factor x^2 + 5x + 6', '(x + 2)(x + 3)'],
    ['Factorise 2x^2 - 8', '2(x - 2)(x + 2)'],
    ['Factor x^4 - 16', '(x - 2)(x + 2)(x^2 + 4)'],
    ['Factor 6x^2 + x - 2', '(2x - 1)(3x + 2)'],
    ['Factor 3x^2 + 12x + 12', '3(x + 2)^2'],
    ['Factor x^3 - x', 'x(x - 1)(x + 1)'],
  ])('factors %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'polynomial', finalAnswer: answer });
  });

  it('names each root it divides out and checks by expanding', () => {
    const titles = solved('Factor x^3 - 6x^2 + 11x - 6').steps.map((s) => s.title);
    expect(titles).toContain('Find the root x = 1');
    expect(titles.at(-1)).toBe('Check by expanding');
  });

  it('does not claim a quartic with no rational root (x^4 + 4 does factor, into two quadratics)', () => {
    expect(solveProblem('Factor x^4 + 4')).toMatchObject({ solved: false });
  });

  it('simplifies a rational expression, cancelling and stating the excluded values', () => {
    const s = solved('Simplify (x^2 + 3x + 2)/(x^2 + 4x + 4)');
    expect(s).toMatchObject({ category: 'rational_expression', finalAnswer: '(x + 1)/(x + 2) (x ≠ -2)' });
    expect(s.steps.map((x) => x.title)).toEqual(['The problem as read', 'Write the expression', 'Factor the numerator', 'Factor the denominator', 'Cancel the common factors', 'State the excluded values']);
  });

  it('keeps the restriction of a cancelled factor', () => {
    expect(solved('Simplify (x^2 - 1)/(x - 1)').finalAnswer).toBe('x + 1 (x ≠ 1)');
  });
});
