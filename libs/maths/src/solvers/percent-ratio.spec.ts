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

describe('percentages and ratios', () => {
  it.each([
    ['What is 15% of 80?', '12'],
    ['Find 12.5 percent of 64.', '8'],
    ['What percent of 120 is 30?', '25%'],
    ['45 is what percent of 60?', '75%'],
    ['Increase 80 by 15%.', '92'],
    ['Decrease 250 by 20 percent', '200'],
    ['A price rises from 40 to 50. What is the percentage increase?', '25% (an increase)'],
    ['Find the percentage decrease from 80 to 60.', '-25% (a decrease)'],
    ['Divide 120 in the ratio 2:3.', '48 : 72'],
    ['Simplify the ratio 12:18', '2 : 3'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'percent_ratio', finalAnswer: answer });
  });

  it('does not claim a percentage problem with numbers it does not use', () => {
    expect(solveProblem('After 2 years, what is 15% of 80 plus 3?').solved).toBe(false);
  });
});
