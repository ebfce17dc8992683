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

describe('quadratic equations', () => {
  it('factors when the roots are rational', () => {
    const s = solved('Solve x^2 + 5x + 6 = 0');
    expect(s.finalAnswer).toBe('x = -3 or x = -2');
    expect(s.steps.map((x) => x.title)).toContain('The discriminant is a perfect square, so factor');
    expect(s.steps.find((x) => x.title.includes('factor'))!.detail).toContain('(x + 2)(x + 3)');
  });

  it('factors with integer factors when the roots are fractions', () => {
    expect(solved('Solve 2x^2 + 5x - 3 = 0').finalAnswer).toBe('x = -3 or x = 1/2 = 0.5');
  });

  it('completes the square when a = 1 and b is even', () => {
    const s = solved('Solve x^2 - 2x - 1 = 0');
    expect(s.finalAnswer).toBe('x = 1 ± √2 (x ≈ 2.414213562 or x ≈ -0.4142135624)');
    expect(s.steps.map((x) => x.title)).toContain('Complete the square');
  });

  it('uses the formula otherwise, with the surd simplified', () => {
    const s = solved('Solve 2x^2 + 3x - 1 = 0');
    expect(s.finalAnswer).toBe('x = (-3 ± √17)/4 (x ≈ 0.2807764064 or x ≈ -1.780776406)');
    expect(s.steps.map((x) => x.title)).toContain('Use the quadratic formula');
  });

  it('states complex roots as such', () => {
    const s = solved('Solve x^2 + 2x + 5 = 0');
    expect(s.finalAnswer).toBe('x = -1 ± 2i (complex roots; no real solution)');
    expect(s.answer).toEqual({ kind: 'roots', variable: 'x', roots: [{ re: -1, im: 2 }, { re: -1, im: -2 }] });
  });

  it('gives a double root once', () => {
    expect(solved('Solve x^2 - 10x + 25 = 0').finalAnswer).toBe('x = 5');
  });

  it('does not claim cubics', () => {
    expect(solveProblem('Solve x^3 - 6x^2 + 11x - 6 = 0')).toMatchObject({ solved: false, inScope: false });
  });
});
