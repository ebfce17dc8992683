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

describe('derivatives', () => {
  it.each([
    ['Find the derivative of x^3 + 2x', "f'(x) = 3x^2 + 2"],
    ["If f(x) = 5x^4 - 3x^2 + 7, find f'(x).", "f'(x) = 20x^3 - 6x"],
    ['Differentiate (3x + 1)^4 with respect to x.', "f'(x) = 324x^3 + 324x^2 + 108x + 12"],
    ['Differentiate y = 3x^2 - 4x + 1', 'dy/dx = 6x - 4'],
    ["If g(t) = t^3, find g'(t)", "g'(t) = 3t^2"],
  ])('%j → %j', (text, answer) => {
    expect(solved(text)).toMatchObject({ category: 'derivative', finalAnswer: answer });
  });

  it('names the rule used for each term', () => {
    const titles = solved('Find dy/dx when y = x^2 * sin(x) + ln(x^2 + 1)').steps.map((s) => s.title);
    expect(titles).toEqual(expect.arrayContaining(['Sum rule', 'Differentiate x^2 * sin(x) (product rule)', 'Differentiate ln(x^2 + 1) (logarithm rule with the chain rule)']));
  });

  it('writes the natural logarithm as ln and checks numerically', () => {
    const s = solved('Differentiate x * ln(x)');
    expect(s.finalAnswer).toMatch(/ln\(x\)/);
    expect(s.verification).toMatch(/finite difference/);
  });

  it('differentiates with respect to the variable named', () => {
    expect(solved('Find d/dt of t^2 + 3t').finalAnswer).toBe("f'(t) = 2t + 3");
  });
});
