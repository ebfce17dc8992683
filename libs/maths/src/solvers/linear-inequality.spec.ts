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

describe('linear inequalities', () => {
  it.each([
    ['Solve 3x - 4 > 5', 'x > 3'],
    ['Solve -2x + 1 <= 7', 'x ≥ -3'],
    ['Solve 5 - x < 2x + 11', 'x > -2'],
    ['Solve 0.5x + 1 ≤ 3', 'x ≤ 4'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'linear_inequality', finalAnswer: answer });
  });

  it('says why the inequality reverses', () => {
    expect(solved('Solve -2x + 1 <= 7').steps[3]!.title).toBe('Divide by -2 and reverse the inequality (dividing by a negative number)');
  });
});
