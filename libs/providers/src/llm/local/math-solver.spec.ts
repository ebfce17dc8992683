import { findMathCandidate, solveMathProblem } from './math-solver.js';

describe('local math solver', () => {
  it.each([
    ['What is 12 * (3 + 4)?', '84'],
    ['Compute 2 + 3 * 4', '14'],
    ['Calculate 10 / 4 - 1', '3/2'],
    ['What is 7 divided by 2?', '7/2'],
    ['Evaluate (2^3 - 4) * -2', '-8'],
    ['What is sqrt(16) + 2?', '6'],
  ])('works out the arithmetic of %j', (problem, answer) => {
    const solution = solveMathProblem(problem);
    expect(solution).toMatchObject({ canSolve: true, kind: 'arithmetic', finalAnswer: answer });
  });

  it('shows one operation per step, innermost first', () => {
    const solution = solveMathProblem('What is 12 * (3 + 4)?');
    if (!solution.canSolve) throw new Error(solution.reason);
    expect(solution.steps).toEqual([
      { title: 'Write the expression', detail: '12 * (3 + 4)' },
      { title: 'Compute 3 + 4', detail: '3 + 4 = 7, so the expression becomes 12 * 7' },
      { title: 'Compute 12 * 7', detail: '12 * 7 = 84, so the expression becomes 84' },
    ]);
  });

  it('says when only a floating-point answer exists', () => {
    expect(solveMathProblem('What is sqrt(2) * 3?')).toMatchObject({ canSolve: true, finalAnswer: '≈ 4.242640687', approximate: true });
  });

  it.each([
    ['2x + 3 = 7', 'x = 2'],
    ['Solve 3(x - 2) = 12', 'x = 6'],
    ['Solve for y: 5 - 2y = 3y + 20', 'y = -3'],
    ['If 3x + 1 = 2, what is x?', 'x = 1/3'],
    ['Find n such that (n + 1)/2 - (n - 1)/3 = 2.', 'n = 7'],
    ['0.5x + 1.25 = 2', 'x = 3/2'],
    ['x + 1 = x + 2', 'no solution'],
    ['2(x + 1) = 2x + 2', 'every real x'],
    ['Solve for x: 2x + 3 = 7 (show your steps)', 'x = 2'],
  ])('solves the linear equation %j', (problem, answer) => {
    expect(solveMathProblem(problem)).toMatchObject({ canSolve: true, finalAnswer: answer });
  });

  it('explains the linear solution step by step and checks it', () => {
    const solution = solveMathProblem('Solve 3(x - 2) = 12');
    if (!solution.canSolve) throw new Error(solution.reason);
    expect(solution.kind).toBe('linear_equation');
    expect(solution.steps.map((s) => s.title)).toEqual(['Write the equation', 'Bring every term to the left side', 'Collect like terms', 'Isolate x', 'Check']);
    expect(solution.steps[2]!.detail).toContain('3x - 18 = 0');
    expect(solution.steps[3]!.detail).toBe('3x = 18, so x = 18 / 3 = 6.');
    expect(solution.steps[4]!.detail).toContain('the left side is 12 and the right side is 12');
  });

  it.each([
    ['Solve x^2 = 4', /not linear in x/],
    ['Solve x + y = 3', /2 unknowns/],
    ['Prove that there are infinitely many primes.', /no arithmetic expression or equation/],
    ['Alice has three apples and eats one. How many are left?', /no arithmetic expression or equation/],
    ['What is 1/0?', /no finite real value|could not/i],
    ['Solve \\frac{1}{2}x = 3', /LaTeX/],
    ['Find x such that x = 3 mod 5', /no arithmetic expression or equation/],
    ['What is 20% of 50?', /no arithmetic expression or equation/],
  ])('honestly refuses %j', (problem, reason) => {
    const solution = solveMathProblem(problem);
    expect(solution.canSolve).toBe(false);
    if (!solution.canSolve) expect(solution.reason).toMatch(reason);
  });

  it('picks the math out of prose and prefers an equation', () => {
    expect(findMathCandidate('Problem 3 of the worksheet: solve 4x - 5 = 11 and show your work.')).toEqual({ lhs: '4x - 5', rhs: '11' });
    expect(findMathCandidate('There is no math here.')).toBeUndefined();
  });
});
