import { solveProblem } from '../engine.js';
import { DEFAULT_MATHS_BUDGET } from './budget.js';

/** Runs `solve` and returns its outcome with the milliseconds it took. */
function timed<T>(solve: () => T): { readonly outcome: T; readonly ms: number } {
  const started = performance.now();
  const outcome = solve();
  return { outcome, ms: performance.now() - started };
}

describe('a step budget per solve (bounded work on hostile input)', () => {
  // Each of these took 0.9–5.4 s of one synchronous call before the budget (measured on the dev box).
  // And a quadratic whose discriminant has 24 digits (trial division of it).
  const hostile = ['Integrate (x+1)^60', 'Integrate (x^2+3)^40', 'Simplify sqrt(99999999999973)', 'Simplify sqrt(999999999999989)', 'Solve x^2 + 123456789012345x + 1 = 0'];

  it.each(hostile)('given %s, then it is refused as too much work, well inside a second', (problem) => {
    const { outcome, ms } = timed(() => solveProblem(problem));
    expect(outcome).toMatchObject({ solved: false, inScope: true });
    expect(outcome.solved ? '' : outcome.reason).toMatch(/^too much work for the maths engine: /);
    expect(ms).toBeLessThan(DEFAULT_MATHS_BUDGET.millis);
  });

  it('given the same kinds of problem at school size, then they are still solved within the default budget', () => {
    expect(solveProblem('Integrate (x+1)^10')).toMatchObject({ solved: true });
    expect(solveProblem('Simplify sqrt(123456789012)')).toMatchObject({ solved: true, finalAnswer: '2√30864197253' });
  });

  it('given a smaller budget, then the same problem is refused (the budget is the caller\'s to set)', () => {
    expect(solveProblem('Integrate (x+1)^10', { steps: 1_000, millis: 1_000 })).toMatchObject({ solved: false, reason: expect.stringMatching(/more than the 1000 steps/) as unknown });
    // Enough steps to read the problem (the reading is charged too), not to search its square factors.
    expect(solveProblem('Simplify sqrt(123456789012)', { steps: 20_000, millis: 1_000 })).toMatchObject({ solved: false, reason: expect.stringMatching(/square factors of 123456789012/) as unknown });
    expect(solveProblem('Solve 2x + 3 = 11', { steps: 1_000, millis: 0 })).toMatchObject({ solved: false, reason: expect.stringMatching(/ran past the 0 ms/) as unknown });
  });
});
