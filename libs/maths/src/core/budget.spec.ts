import { solveProblem } from '../engine.js';
import { DEFAULT_MATHS_BUDGET } from './budget.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

/**
 * Runs `solve` and returns its outcome with the CPU milliseconds the process spent on it: unlike the wall
 * clock, this does not grow with the other work on a loaded machine, only with the solve's own.
 */
function cpuTimed<T>(solve: () => T): { readonly outcome: T; readonly cpuMs: number } {
  const started = process.cpuUsage();
  const outcome = solve();
  const { user, system } = process.cpuUsage(started);
  return { outcome, cpuMs: (user + system) / 1_000 };
}

/** The default step budget with its wall-clock limit out of reach, so the steps alone must end the work. */
const STEPS_ONLY = { steps: DEFAULT_MATHS_BUDGET.steps, millis: 600_000 };

describe('a step budget per solve (bounded work on hostile input)', () => {
  // Each of these took 0.9–5.4 s of one synchronous call before the budget (measured on the dev box).
  // And a quadratic whose discriminant has 24 digits (trial division of it).
  const hostile = ['Integrate (x+1)^60', 'Integrate (x^2+3)^40', 'Simplify sqrt(99999999999973)', 'Simplify sqrt(999999999999989)', 'Solve x^2 + 123456789012345x + 1 = 0'];

  // The step budget, not the clock, ends each (a loaded machine cannot change the reason), and the work
  // it allows stays well inside a second of the process's own CPU time (load does not add to that).
  it.each(hostile)('given %s, then its step budget refuses it as too much work, well inside a second of CPU', (problem) => {
    const { outcome, cpuMs } = cpuTimed(() => solveProblem(problem, STEPS_ONLY));
    expect(outcome).toMatchObject({ solved: false, inScope: true });
    expect(outcome.solved ? '' : outcome.reason).toMatch(new RegExp(`^too much work for the maths engine: .* needs more than the ${DEFAULT_MATHS_BUDGET.steps} steps`));
    expect(cpuMs).toBeLessThan(DEFAULT_MATHS_BUDGET.millis);
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
