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

describe('limits of rational functions', () => {
  it.each([
    ['Find the limit of (x^2 - 4)/(x - 2) as x approaches 2', '4'],
    ['Evaluate lim x -> 3 (x^2 - 5x + 6)/(x^2 - 9)', '1/6 ≈ 0.1666666667'],
    ['What is the limit of (2x^2 + 1)/(x^2 - 3) as x tends to infinity?', '2'],
    ['Find the limit of (3x + 1)/(x^2 + 5) as x approaches infinity', '0'],
    ['Find the limit of 1/(x - 1)^2 as x approaches 1', '∞'],
    ['Find the limit of 1/(x - 2) as x approaches 2', 'does not exist'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'limit', finalAnswer: answer });
  });

  it('cancels the common factor before substituting', () => {
    expect(solved('Find the limit of (x^2 - 4)/(x - 2) as x approaches 2').steps.map((s) => s.title)).toEqual(['The problem as read', 'Write the limit', 'Try direct substitution', 'Both are 0: cancel the common factor x - 2', 'Substitute again']);
  });

  it('does not claim limits of other functions', () => {
    expect(solveProblem('Find the limit of sin(x)/x as x approaches 0')).toMatchObject({ solved: false, inScope: false });
  });
});
