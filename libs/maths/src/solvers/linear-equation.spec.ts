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

describe('linear equations', () => {
  it.each([
    ['Solve 2x + 3 = 7', 'x = 2'],
    ['Solve 3(x - 2) = 12', 'x = 6'],
    ['Solve for y: 5 - 2y = 3y + 20', 'y = -3'],
    ['If 3x + 1 = 2, what is x?', 'x = 1/3 ≈ 0.3333333333'],
    ['0.5x + 1.25 = 2', 'x = 3/2 = 1.5'],
    ['x + 1 = x + 2', 'no solution'],
    ['2(x + 1) = 2x + 2', 'every real x'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'linear_equation', finalAnswer: answer });
  });

  it('collects terms, divides, and checks by substitution with exact values', () => {
    const solution = solved('Solve 3(x - 2) = 12');
    expect(solution.steps.map((s) => s.title)).toEqual(['The problem as read', 'Write the equation', 'Expand and collect like terms on each side', 'Move the x terms to the left and the numbers to the right', 'Divide both sides by 3', 'Check by substitution']);
    expect(solution.steps.at(-1)!.detail).toContain('the left side is \\(12\\) and the right side is \\(12\\)');
    expect(solution.answer).toEqual({ kind: 'roots', variable: 'x', roots: [{ re: 6, im: 0, exact: '6' }] });
  });

  it('refuses two unknowns in one equation', () => {
    expect(solveProblem('Solve x + y = 3')).toMatchObject({ solved: false, inScope: false });
  });
});
