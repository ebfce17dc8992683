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

  // Each was answered in the solver's own unit (20 m/s for "find its speed in km/h"): a right speed, not the answer asked for.
  it.each([
    ['A train travels 300 m in 15 s. Find its speed in km/h.', '72 km/h'],
    ['A cyclist travels 36 km in 2 hours. What is her average speed in m/s?', '5 m/s'],
    ['How long does it take to travel 120 km at 40 km/h? Give the time in minutes.', '180 minutes'],
    ['How far does a car go in 30 minutes at 60 km/h? Give the distance in metres.', '30000 m'],
  ])('answers in the unit asked for: %j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'speed_distance_time', finalAnswer: answer });
  });

  it('refuses a unit asked for that is not one of the quantity asked', () => {
    expect(solveProblem('A train travels 300 m in 15 s. Find its speed in km.')).toMatchObject({ solved: false, reason: expect.stringContaining('not a unit of the speed') as unknown });
  });
});
