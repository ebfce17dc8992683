import { solveProblem } from '../engine.js';
import type { EngineSolution } from '../types.js';

function solved(text: string): EngineSolution {
  const outcome = solveProblem(text);
  if (!outcome.solved) throw new Error(`declined: ${outcome.reason}`);
  return outcome;
}

describe('speed, distance and time', () => {
  it.each([
    ['A car travels 150 km in 2 hours 30 minutes. What is its average speed?', '60 km/h'],
    ['A train covers 90 miles in 1.5 hours. How fast is it going?', '60 mph'],
    ['How far does a car go in 3 hours at 60 km/h?', '180 km'],
    ['How long does it take to travel 240 km at 80 km/h?', '3 hours'],
    ['How long does it take to travel 35 km at 70 km/h?', '0.5 hours (30 minutes)'],
    ['A runner covers 100 m at 4 m/s. How long does it take?', '25 s'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'speed_distance_time', finalAnswer: answer });
  });

  it('converts the time to one unit before dividing', () => {
    expect(solved('A car travels 150 km in 2 hours 30 minutes. What is its average speed?').steps[2]!.detail).toBe('2 hours 30 minutes = 2.5 h');
  });

  it('does not claim a two-leg journey (a number it would ignore)', () => {
    expect(solveProblem('A car travels 150 km in 2 hours and then 100 km in 3 hours. What is its average speed?').solved).toBe(false);
  });
});
