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

describe('area, perimeter and volume', () => {
  it.each([
    ['Find the area of a circle with radius 5 cm.', '25π cm² ≈ 78.5398 cm²'],
    ['A circle has a diameter of 8 m. What is its circumference?', '8π m ≈ 25.1327 m'],
    ['A rectangle is 12 m long and 3.5 m wide. What is its area?', '42 m²'],
    ['Find the perimeter of a rectangle with length 8 cm and width 5 cm.', '26 cm'],
    ['Find the area of a triangle with base 7 cm and height 4 cm.', '14 cm²'],
    ['Find the volume of a box with length 4 cm, width 3 cm and height 2 cm.', '24 cm³'],
    ['Find the volume of a sphere with radius 3 cm.', '36π cm³ ≈ 113.097 cm³'],
    ['A cone has radius 3 m and height 4 m. What is its volume?', '12π m³ ≈ 37.6991 m³'],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'geometry', finalAnswer: answer });
  });

  it('halves a diameter with a step of its own', () => {
    expect(solved('Find the circumference of a circle with diameter 8 cm.').steps.map((s) => s.title)).toContain('Halve the diameter to get the radius');
  });

  it('does not claim shapes or units it does not handle', () => {
    expect(solveProblem('What is the area of a kite with diagonals 3 cm and 5 cm?').solved).toBe(false);
    expect(solveProblem('What is the area of a trapezium with parallel sides 3 cm and 5 cm?').solved).toBe(false);
    expect(solveProblem('Find the area of a rectangle with length 2 m and width 30 cm.').solved).toBe(false);
  });
});
