import { solveProblem } from '../engine.js';
import type { EngineSolution } from '../types.js';

function solved(text: string): EngineSolution {
  const outcome = solveProblem(text);
  if (!outcome.solved) throw new Error(`declined: ${outcome.reason}`);
  return outcome;
}

describe('arithmetic', () => {
  it.each([
    ['What is 12 * (3 + 4)?', '84'],
    ['Calculate 10 / 4 - 1', '3/2 = 1.5'],
    ['What is 7 divided by 2?', '7/2 = 3.5'],
    ['Evaluate (2^3 - 4) * -2', '-8'],
    ['What is sqrt(2) * 3?', '≈ 4.242640687'],
    ['Work out (1/2 + 1/3) * 6', '5'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'arithmetic', finalAnswer: answer });
  });

  it('reduces one operation at a time, innermost first', () => {
    expect(solved('What is 12 * (3 + 4)?').steps.map((s) => s.title)).toEqual(['The problem as read', 'Write the expression', 'Compute 3 + 4', 'Compute 12 * 7']);
  });

  it('declines what has no finite value', () => {
    expect(solveProblem('What is 1/0?').solved).toBe(false);
  });

  it('does not pass a decimal off as a simplified surd: the surd is simplified exactly, or the problem refused', () => {
    expect(solveProblem('Simplify sqrt(50)')).toMatchObject({ solved: true, finalAnswer: '5√2' });
    expect(solveProblem('Write 3^(1/3) in simplest surd form')).toMatchObject({ solved: false });
  });
});
