import { checkFinalAnswer } from '../check/answer-check.js';
import { solveProblem } from '../engine.js';
import { unheldNumeralIn } from './exact-range.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

const PAST_EXACT_RANGE = /past 2\^53/;

describe('numbers past 2^53 are refused by every solver and every answer check (issue 24)', () => {
  // Each was answered before the check was total: from a double that does not hold the number (an
  // answer, a step, or the problem's own maths), checked by comparisons that cannot tell it from its neighbours.
  it.each([
    ['arithmetic', 'Evaluate 2^60'],
    ['arithmetic', 'Work out 99999999 times 99999999'],
    ['polynomial', 'Expand (x + 100000)^4'],
    ['linear_equation', 'Solve x - 100000000000000000 = 1'],
    ['quadratic_equation', 'Solve x^2 = 100000000000000000000'],
    ['linear_system', 'Solve x/2 + y = 9000000000000000, y = 1'],
    ['linear_inequality', 'Solve x/3 > 9000000000000000'],
    ['absolute_value', 'Solve |x - 9000000000000000| = 200000000000000'],
    ['exponent_log', 'Evaluate log(100000000000000000000)'],
    ['derivative', 'Differentiate x^(10^17)'],
    ['integral', 'Integrate 10000000000000000 x^3'],
    ['surd', 'Simplify sqrt(90000000000000000)'],
    ['percent_ratio', 'Increase 9000000000000000 by 3%'],
    ['speed_distance_time', 'A car travels 900000000000000 km in 0.01 hours. Find its speed.'],
    ['interest', 'Find the simple interest on $9000000000000000 at 5% for 300 years'],
    ['geometry', 'Find the volume of a cube of side 300000 cm'],
    ['unit_conversion', 'Convert 900000000000000 km to mm'],
    ['conversion', 'Write 9000000000000000 as a percentage'],
    ['coordinate_geometry', 'Find the distance between (0, 0) and (90000000, 120000000)'],
    ['statistics', `Find the mean of ${[...Array<string>(9).fill('900000000000000'), '900000000000001', '900000000000003'].join(', ')}`],
    ['right_triangle', 'A right-angled triangle has legs 94906267 cm and 94906267 cm. Find the hypotenuse.'],
  ])('%s: %j is refused by name', (_family, text) => {
    const outcome = solveProblem(text);
    expect(outcome).toMatchObject({ solved: false, inScope: true, reason: expect.stringMatching(PAST_EXACT_RANGE) });
  });

  it.each([
    ['Evaluate 999999999999999 + 999999999999999', '1999999999999998'],
    ['Solve 3x = 9007199254740990', 'x = 3002399751580330'],
    ['A car travels 900000000000000 km in 0.1 hours. Find its speed.', '9000000000000000 km/h'],
    ['Solve 2x + 3 = 11', 'x = 4'],
  ])('a number within 2^53 is still answered: %j → %s', (text, answer) => {
    expect(solveProblem(text)).toMatchObject({ solved: true, finalAnswer: answer });
  });

  it('finds numerals past 2^53 however they are written, and only those', () => {
    expect(unheldNumeralIn('x = 9007199254740993')).toBe('9007199254740993');
    expect(unheldNumeralIn('1.2\\cdot 10^{+17}')).toBe('1.2\\cdot 10^{+17}');
    expect(unheldNumeralIn('f(x) = 1e+17 * x')).toBe('1e+17');
    expect(unheldNumeralIn('about 3 × 10^20 grains')).toBe('3 × 10^20');
    expect(unheldNumeralIn('x = 9007199254740991, y = 0.000001, 1e-20, 2 × 10^3, ≈ 1.4142135623730951')).toBeUndefined();
  });

  describe('the answer check', () => {
    it('gives no verdict on a written number past 2^53 (as doubles it equals its neighbours)', () => {
      expect(checkFinalAnswer('Evaluate 2^60', '1152921504606846977')).toMatchObject({ verdict: 'unchecked', reason: expect.stringMatching(PAST_EXACT_RANGE) });
    });

    it('gives no verdict by substitution when the sides are past 2^53 (10^30 − 0.35 is 10^30 to a double)', () => {
      expect(checkFinalAnswer('Solve x^5 + sin(x) = 10^30', 'x = 1000000').verdict).toBe('unchecked');
    });

    it.each([
      ['Evaluate 123456789 * 1000', '123456789001'],
      ['Solve x - 123456789012 = 0', 'x = 123456789013'],
      ['Find the mean of 400000000001, 400000000002, 400000000003', '400000000003'],
    ])('tells whole numbers one apart: %j ← %j disagrees', (problem, answer) => {
      expect(checkFinalAnswer(problem, answer).verdict).toBe('disagrees');
    });

    it.each([
      ['Evaluate 123456789 * 1000', '123456789000'],
      ['Find the mean of 400000000001, 400000000002, 400000000003', '400000000002'],
    ])('still agrees with the right whole number: %j ← %j', (problem, answer) => {
      expect(checkFinalAnswer(problem, answer).verdict).toBe('agrees');
    });
  });
});
