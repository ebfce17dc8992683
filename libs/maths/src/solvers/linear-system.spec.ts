import { solveProblem } from '../engine.js';
import type { EngineSolution } from '../types.js';

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
    expect(solved('Solve simultaneously: x + y + z = 6 and 2x - y + z = 3 and x + 2y - z = 2').answer).toEqual({ kind: 'assignment', values: { x: 1, y: 2, z: 3 } });
  });

  it('reorders when the first pivot is zero', () => {
    expect(solved('Solve y = 3, x + y = 5').finalAnswer).toBe('x = 2, y = 3');
  });

  it('declines a dependent system rather than guessing', () => {
    expect(solveProblem('Solve x + y = 2, 2x + 2y = 4')).toMatchObject({ solved: false, inScope: true });
  });
});
