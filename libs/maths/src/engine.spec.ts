import { solveProblem } from './engine.js';

describe('maths engine routing', () => {
  it.each([
    ['Solve 2x + 3 = 7', 'linear_equation', 'x = 2'],
    ['Solve x^2 + 5x + 6 = 0', 'quadratic_equation', 'x = -3 or x = -2'],
    ['Solve x^2 - 2x - 1 = 0', 'quadratic_equation', 'x = 1 ± √2 (x ≈ 2.414213562 or x ≈ -0.4142135624)'],
    ['Solve x^2 + 2x + 5 = 0', 'quadratic_equation', 'x = -1 ± 2i (complex roots; no real solution)'],
    ['Solve the system 2x + y = 5, x - y = 1', 'linear_system', 'x = 2, y = 1'],
    ['Solve 3x - 4 > 5', 'linear_inequality', 'x > 3'],
    ['Solve -2x + 1 <= 7', 'linear_inequality', 'x ≥ -3'],
    ['Factor x^2 + 5x + 6', 'polynomial', '(x + 2)(x + 3)'],
    ['Expand (x + 1)^3', 'polynomial', 'x^3 + 3x^2 + 3x + 1'],
    ['Simplify (x^2 - 1)/(x - 1)', 'rational_expression', 'x + 1 (x ≠ 1)'],
    ['Simplify x^3 * x^5', 'exponent_log', 'x^8'],
    ['Solve 2^(x+1) = 32', 'exponent_log', 'x = 4'],
    ['Evaluate log2(8)', 'exponent_log', '3'],
    ['What is 15% of 80?', 'percent_ratio', '12'],
    ['A car travels 150 km in 2 hours 30 minutes. What is its average speed?', 'speed_distance_time', '60 km/h'],
    ['Find the simple interest on $500 at 4% per year for 3 years.', 'interest', '$60.00'],
    ['Find the area of a circle with radius 5 cm.', 'geometry', '25π cm² ≈ 78.5398 cm²'],
    ['Find the derivative of x^3 + 2x', 'derivative', "f'(x) = 3 * x ^ 2 + 2"],
    ['Integrate 3x^2 + 2x dx', 'integral', 'x ^ 3 + x ^ 2 + C'],
    ['Find the limit of (x^2 - 4)/(x - 2) as x approaches 2', 'limit', '4'],
    ['Convert 5 km to m', 'unit_conversion', '5000 m'],
    ['What is 12 * (3 + 4)?', 'arithmetic', '84'],
  ])('%j', (text, category, answer) => {
    const outcome = solveProblem(text);
    if (!outcome.solved) throw new Error(outcome.reason);
    expect({ category: outcome.category, answer: outcome.finalAnswer }).toEqual({ category, answer });
  });
});
