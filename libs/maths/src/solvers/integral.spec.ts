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

describe('integrals', () => {
  it.each([
    ['Integrate 3x^2 + 2x dx', 'x^3 + x^2 + C'],
    ['Find the integral of 5 with respect to x.', '5x + C'],
    ['Find the antiderivative of 4x^3 - 6x + 1', 'x^4 - 3x^2 + x + C'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'integral', finalAnswer: answer });
  });

  it('integrates term by term with the rule named, and checks by differentiating', () => {
    const s = solved('Integrate sin(x) + exp(2x) dx');
    expect(s.steps.map((x) => x.title)).toEqual(expect.arrayContaining(['Linearity', 'Integrate sin(x) (trigonometric rule)', 'Check by differentiating']));
    expect(s.answer).toMatchObject({ kind: 'expression', upToConstant: true });
  });

  it('evaluates a definite integral exactly', () => {
    expect(solved('Integrate 3x^2 dx from 0 to 2').finalAnswer).toBe('8');
    expect(solved('Find the integral of 2x + 1 from 1 to 3.').finalAnswer).toBe('10');
  });

  it('declines what has no elementary antiderivative', () => {
    expect(solveProblem('Integrate exp(x^2) dx').solved).toBe(false);
  });
});
