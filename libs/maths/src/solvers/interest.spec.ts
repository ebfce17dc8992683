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

describe('simple and compound interest', () => {
  it.each([
    ['Find the simple interest on $500 at 4% per year for 3 years.', '$60.00'],
    ['How much simple interest does $800 earn at 3.5% per annum over 4 years?', '$112.00'],
    ['What is the total amount after 2 years if $400 earns simple interest at 5% per year?', '$440.00'],
    ['$1000 is invested at 5% compound interest, compounded annually, for 2 years. What is the final amount?', '$1102.50'],
    ['How much interest is earned on $1000 at 6% compounded monthly for 2 years?', '$127.16'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'interest', finalAnswer: answer });
  });

  it('does not guess between simple and compound', () => {
    expect(solveProblem('Find the interest on $500 at 4% for 3 years.').solved).toBe(false);
  });
});
