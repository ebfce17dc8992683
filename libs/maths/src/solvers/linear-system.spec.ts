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

describe('linear systems', () => {
  it('solves a 2×2 system by elimination and checks it', () => {
    const s = solved('Solve the system 2x + y = 5, x - y = 1');
    expect(s.finalAnswer).toBe('x = 2, y = 1');
    expect(s.steps.map((x) => x.title)).toEqual(['The problem as read', 'Write each equation in standard form', 'Eliminate x from (2)', 'Solve for y', 'Solve for x', 'Check by substitution']);
  });

  it('solves a 3×3 system', () => {
    expect(solved('Solve simultaneously: x + y + z = 6 and 2x - y + z = 3 and x + 2y - z = 2').answer).toEqual({ kind: 'assignment', values: { x: 1, y: 2, z: 3 }, exact: { x: '1', y: '2', z: '3' } });
  });

  it('reorders when the first pivot is zero', () => {
    expect(solved('Solve y = 3, x + y = 5').finalAnswer).toBe('x = 2, y = 3');
  });

  it('answers a dependent system exactly (infinitely many, one unknown free) and an inconsistent one with no solution', () => {
    expect(solveProblem('Solve x + y = 2, 2x + 2y = 4')).toMatchObject({ solved: true, finalAnswer: 'infinitely many solutions: x = 2 - y, for every real y', answer: { kind: 'all_values', variable: 'y' } });
    expect(solveProblem('Solve a - b = 1, 3a - 3b = 5')).toMatchObject({ solved: true, finalAnswer: 'no solution', answer: { kind: 'no_solution' } });
    expect(solveProblem('Solve x + y + z = 1, 2x + 2y + 2z = 2, 3x + 3y + 3z = 3')).toMatchObject({ solved: false, inScope: true });
  });
});
