import { boundedMathsEngine } from '@openpaw/maths';
import { findMathCandidate, solveMathProblem } from './math-solver.js';

describe('local math solver (the maths engine behind the local model)', () => {
  afterAll(() => boundedMathsEngine().close());

  it.each([
    ['What is 12 * (3 + 4)?', 'arithmetic', '84'],
    ['Calculate 10 / 4 - 1', 'arithmetic', '3/2 = 1.5'],
    ['Solve for y: 5 - 2y = 3y + 20', 'linear_equation', 'y = -3'],
    ['Solve x^2 = 4', 'quadratic_equation', 'x = -2 or x = 2'],
    ['What is 20% of 50?', 'percent_ratio', '10'],
    ['Subject: algebra.\nTopics: equation.\nProblem:\nFactor x^2 - 9', 'polynomial', '(x - 3)(x + 3)'],
  ])('solves %j', async (problem, kind, answer) => {
    await expect(solveMathProblem(problem)).resolves.toMatchObject({ canSolve: true, kind, finalAnswer: answer });
  });

  it('says when only a decimal approximation exists', async () => {
    await expect(solveMathProblem('What is sqrt(2) * 3?')).resolves.toMatchObject({ canSolve: true, finalAnswer: '≈ 4.242640687', approximate: true });
  });

  it.each([
    ['Prove that there are infinitely many primes.', /not one the maths engine recognises/],
    ['What is 1/0?', /no finite real value|check failed|division by zero/],
    ['Solve \\frac{1}{2}x = 3', /LaTeX/],
    // A relation split by a word is refused as maths not read whole (one parser, issue 24).
    ['Find x such that x = 3 mod 5', /part of the maths is not read/],
    ['Solve x + y = 3', /2 unknowns/],
  ])('honestly refuses %j', async (problem, reason) => {
    const solution = await solveMathProblem(problem);
    expect(solution.canSolve).toBe(false);
    if (!solution.canSolve) expect(solution.reason).toMatch(reason);
  });

  // One library call that never charges the step budget ran for minutes on the engine's thread.
  it('refuses an integral nested 40 deep as too much work, within a bounded time', async () => {
    const started = performance.now();
    const solution = await solveMathProblem(`Integrate ${'sin('.repeat(40)}x${')'.repeat(40)}`);
    expect(solution).toMatchObject({ canSolve: false, reason: expect.stringMatching(/^too much work for the maths engine/) as unknown });
    expect(performance.now() - started).toBeLessThan(30_000); // the engine's start (a cold worker thread) and its 1 s budget
  }, 60_000);

  it('finds the maths in prose, and none where there is none', () => {
    expect(findMathCandidate('Problem 3 of the worksheet: solve 4x - 5 = 11 and show your work.')).toBe('4x - 5 = 11');
    expect(findMathCandidate('There is no math here.')).toBeUndefined();
  });
});
