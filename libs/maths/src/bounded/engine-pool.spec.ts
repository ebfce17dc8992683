import { solveProblem } from '../engine.js';
import { DEFAULT_MATHS_BUDGET } from '../core/budget.js';
import { warmUpEngine } from './warm-up.js';
import { BoundedMathsEngine, boundedMathsEngine, configureBoundedMathsEngine, DEADLINE_GRACE_MILLIS, defaultEngineWorkers, MAX_ENGINE_WORKERS } from './engine-pool.js';

/** `Integrate sin(sin(…x…))` nested 40 deep: one engine call that never charges its step budget ran for minutes. */
const NESTED_40 = `Integrate ${'sin('.repeat(40)}x${')'.repeat(40)}`;
/** How late past its deadline a refusal may come on a loaded 2-core machine (the worker's kill and the reply's trip). */
const SLACK_MILLIS = 1_500;
const STARTUP_MILLIS = 60_000;

async function timed<T>(call: () => Promise<T>): Promise<{ readonly outcome: T; readonly ms: number }> {
  const started = performance.now();
  const outcome = await call();
  return { outcome, ms: performance.now() - started };
}

describe('the bounded maths engine (every solve ends by its deadline)', () => {
  const engine = new BoundedMathsEngine({ workers: 1 });
  // The in-thread engine the answers are compared with is warmed as the pool's workers are.
  beforeAll(() => {
    warmUpEngine();
    return engine.warm();
  }, STARTUP_MILLIS);
  afterAll(() => engine.close());

  it(
    'given an integral nested 40 deep (one library call that never charges), then it is refused as too much work within the deadline, and the next problem is answered',
    async () => {
      const { outcome, ms } = await timed(() => engine.solve(NESTED_40));
      expect(outcome).toMatchObject({ solved: false, inScope: true, reason: expect.stringMatching(/^too much work for the maths engine: the solve ran past the 1000 ms/) as unknown });
      expect(ms).toBeLessThan(DEFAULT_MATHS_BUDGET.millis + DEADLINE_GRACE_MILLIS + SLACK_MILLIS);
      // The killed worker's place is taken by a fresh one: the engine still answers.
      await expect(engine.solve('Solve 2x + 3 = 11')).resolves.toMatchObject({ solved: true, finalAnswer: 'x = 4' });
    },
    STARTUP_MILLIS,
  );

  it(
    'given the same problem under a shorter budget, then the deadline follows the budget',
    async () => {
      await engine.warm(); // the worker killed by the call before is replaced; its start is not the call's time
      const { outcome, ms } = await timed(() => engine.solve(NESTED_40, { steps: DEFAULT_MATHS_BUDGET.steps, millis: 200 }));
      expect(outcome).toMatchObject({ solved: false, reason: expect.stringMatching(/ran past the 200 ms/) as unknown });
      expect(ms).toBeLessThan(200 + DEADLINE_GRACE_MILLIS + SLACK_MILLIS);
    },
    STARTUP_MILLIS,
  );

  it(
    'given an answer to check for that problem, then the check gives no verdict (never one from the part that ran)',
    async () => {
      await engine.warm();
      const { outcome, ms } = await timed(() => engine.check(NESTED_40, 'x + C'));
      expect(outcome).toMatchObject({ verdict: 'unchecked', reason: expect.stringMatching(/^too much work for the maths engine/) as unknown });
      expect(ms).toBeLessThan(DEFAULT_MATHS_BUDGET.millis + DEADLINE_GRACE_MILLIS + SLACK_MILLIS);
    },
    STARTUP_MILLIS,
  );

  it(
    'given ordinary problems, then the answers are the in-thread engine\'s, and a check agrees or disagrees as it does in-thread',
    async () => {
      for (const problem of ['Solve x^2 - 5x + 6 = 0', 'Solve x + y = 10, x - y = 2', 'Integrate 3x^2', 'Five more than twice a number is seventeen; find the number']) {
        await expect(engine.solve(problem)).resolves.toEqual(solveProblem(problem));
      }
      await expect(engine.check('Solve 2x + 3 = 11', 'x = 4')).resolves.toMatchObject({ verdict: 'agrees' });
      await expect(engine.check('Solve 2x + 3 = 11', 'x = 5')).resolves.toMatchObject({ verdict: 'disagrees' });
    },
    STARTUP_MILLIS,
  );

  it(
    'given calls beyond its workers while one runs past its deadline, then each waits its turn and is answered',
    async () => {
      const calls = [engine.solve(NESTED_40), engine.solve('Solve 3x = 12'), engine.solve('Evaluate 12 * 13')];
      const [hostile, first, second] = await Promise.all(calls);
      expect(hostile).toMatchObject({ solved: false, reason: expect.stringMatching(/^too much work/) as unknown });
      expect(first).toMatchObject({ solved: true, finalAnswer: 'x = 4' });
      expect(second).toMatchObject({ solved: true, finalAnswer: '156' });
    },
    STARTUP_MILLIS,
  );
});

describe('the process\'s engine\'s worker count (a service\'s setting)', () => {
  afterEach(() => boundedMathsEngine().close());

  it('given a configured count before first use, then the process\'s engine runs that many workers at most', async () => {
    await boundedMathsEngine().close();
    configureBoundedMathsEngine({ workers: 3 });
    expect(boundedMathsEngine().workerLimit).toBe(3);
    await boundedMathsEngine().close();
    configureBoundedMathsEngine({ workers: undefined });
    expect(boundedMathsEngine().workerLimit).toBe(defaultEngineWorkers());
  });

  it('given another count while the engine is in use, then configuring is refused naming both counts', () => {
    configureBoundedMathsEngine({ workers: 2 });
    boundedMathsEngine();
    expect(() => configureBoundedMathsEngine({ workers: 5 })).toThrow(/already runs with 2 workers; it cannot be configured to 5/);
    expect(() => configureBoundedMathsEngine({ workers: 2 })).not.toThrow();
  });

  it.each([0, -1, 1.5, MAX_ENGINE_WORKERS + 1])('given %p workers, then the count is refused as out of range', (workers) => {
    expect(() => configureBoundedMathsEngine({ workers })).toThrow(/workers must be a whole number from 1 to 16/);
    expect(() => new BoundedMathsEngine({ workers })).toThrow(RangeError);
  });
});
