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

describe('unit conversion', () => {
  it.each([
    ['Convert 5 km to m.', '5000 m'],
    ['How many minutes are in 3.5 hours?', '210 minutes'],
    ['Convert 72 km/h to m/s.', '20 m/s'],
    ['Express 10 miles in km', '16.09344 km'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'unit_conversion', finalAnswer: answer });
  });

  it('does not convert between different kinds of unit', () => {
    expect(solveProblem('Convert 5 km to kg.').solved).toBe(false);
  });
});
