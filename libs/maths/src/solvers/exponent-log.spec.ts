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

describe('exponent and logarithm rules', () => {
  it.each([
    ['Simplify x^3 * x^5', 'x^8', 'Product rule: add the exponents'],
    ['Simplify (x^2)^3', 'x^6', 'Power of a power: multiply the exponents'],
    ['Simplify x^7 / x^3', 'x^4', 'Quotient rule: subtract the exponents'],
    ['Simplify x^2 * x^-5', '1/x^3', 'Product rule: add the exponents'],
    ['Simplify (2x^2)^3', '8x^6', 'Power of a product: raise every factor to the power'],
  ])('%j → %j naming the rule', (text, answer, rule) => {
    const s = solved(text);
    expect(s).toMatchObject({ category: 'exponent_log', finalAnswer: answer });
    expect(s.steps.map((x) => x.title)).toContain(rule);
  });

  it.each([
    ['Solve 2^(x+1) = 32', 'x = 4'],
    ['Solve 5^(2x) = 125', 'x = 3/2 = 1.5'],
    ['Solve 2^(x - 3) = 1/4', 'x = 1'],
    ['Solve log_3(x + 1) = 2', 'x = 8'],
    ['Solve log(2x) = 2', 'x = 50'],
  ])('solves %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'exponent_log', finalAnswer: answer });
  });

  it.each([
    ['Evaluate log2(8)', '3'],
    ['What is log_5(1/25)?', '-2'],
    ['Evaluate log(1000)', '3'],
  ])('evaluates %j exactly', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'exponent_log', finalAnswer: answer });
  });

  it('says that a bare log is base 10', () => {
    expect(solved('Evaluate log(1000)').steps.at(-1)!.detail).toContain('common logarithm');
  });

  it('declines when the value is not a power of the base', () => {
    expect(solveProblem('Solve 2^x = 10')).toMatchObject({ solved: false, inScope: true });
  });
});
