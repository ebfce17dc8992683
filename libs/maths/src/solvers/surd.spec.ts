import { solveProblem } from '../engine.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

describe('surds in simplest form', () => {
  it.each([
    ['Simplify √72', '6√2'],
    ['Write √252 in simplest surd form.', '6√7'],
    ['Simplify sqrt(50) + sqrt(8)', '7√2'],
    ['Simplify √12 × √3', '6'],
    ['Rationalise the denominator of 6/√3', '2√3'],
    ['Rationalise 1/(1 + √2)', '-1 + √2'],
    ['Simplify √45/3', '√5'],
    ['Simplify √49', '7'],
  ])('%j → %s, exact, with a step per surd', (text, answer) => {
    const outcome = solveProblem(text);
    expect(outcome.solved && outcome.finalAnswer).toBe(answer);
    expect(outcome.solved && outcome.steps.length).toBeGreaterThanOrEqual(3);
  });

  it('given a simplest form asked of something with no exact surd form, then it is refused, never a decimal', () => {
    for (const text of ['Write √(2 + √3) in simplest surd form.', 'Simplify sqrt(2) + log(3)', 'Give the exact value of 2^(1/3) + √2']) {
      expect({ text, solved: solveProblem(text).solved }).toEqual({ text, solved: false });
    }
  });
});
