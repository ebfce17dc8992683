import { checkFinalAnswer } from '../check/answer-check.js';
import { sameAnswer } from '../check/translation-check.js';
import { solveProblem } from '../engine.js';
import type { Answer, EngineSolution } from '../types.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

function solved(text: string): EngineSolution {
  const outcome = solveProblem(text);
  if (!outcome.solved) throw new Error(`declined: ${outcome.reason}`);
  return outcome;
}

const open = (value: number) => ({ value, exact: String(value), closed: false });
const closed = (value: number) => ({ value, exact: String(value), closed: true });

describe('absolute-value equations and inequalities (issue 24): split by the sign of each absolute value, solved exactly', () => {
  it.each<[string, string, Answer]>([
    ['Solve |x - 3| < 5', '-2 < x < 8', { kind: 'interval_set', variable: 'x', intervals: [{ from: open(-2), to: open(8) }] }],
    ['Solve 5 > |x - 3|', '-2 < x < 8', { kind: 'interval_set', variable: 'x', intervals: [{ from: open(-2), to: open(8) }] }],
    ['Solve |2x+1| >= 3', 'x ≤ -2 or x ≥ 1', { kind: 'interval_set', variable: 'x', intervals: [{ to: closed(-2) }, { from: closed(1) }] }],
    ['Solve |k - 3| > 5', 'k < -2 or k > 8', { kind: 'interval_set', variable: 'k', intervals: [{ to: open(-2) }, { from: open(8) }] }],
    ['Solve 2|x - 1| + 3 < 7', '-1 < x < 3', { kind: 'interval_set', variable: 'x', intervals: [{ from: open(-1), to: open(3) }] }],
    ['Solve |x + 1| < 2x', 'x > 1', { kind: 'interval_set', variable: 'x', intervals: [{ from: open(1) }] }],
    ['Solve |abs(x) - 2| < 1', '-3 < x < -1 or 1 < x < 3', { kind: 'interval_set', variable: 'x', intervals: [{ from: open(-3), to: open(-1) }, { from: open(1), to: open(3) }] }],
    ['Solve |x - 1| + |x - 3| = 2', '1 ≤ x ≤ 3', { kind: 'interval_set', variable: 'x', intervals: [{ from: closed(1), to: closed(3) }] }],
    ['Solve |x - 3| <= 0', 'x = 3', { kind: 'interval_set', variable: 'x', intervals: [{ from: closed(3), to: closed(3) }] }],
    ['Solve |x - 3| > 0', 'x < 3 or x > 3', { kind: 'interval_set', variable: 'x', intervals: [{ to: open(3) }, { from: open(3) }] }],
    ['Solve |x - 3| < 0', 'no solution', { kind: 'no_solution' }],
    ['Solve |x - 3| > -1', 'every real number x', { kind: 'all_values', variable: 'x' }],
    ['Solve |x-3| = 5', 'x = 8 or x = -2', { kind: 'roots', variable: 'x', roots: [{ re: 8, im: 0, exact: '8' }, { re: -2, im: 0, exact: '-2' }] }],
    ['Solve |x - 1| + |x + 2| = 5', 'x = 2 or x = -3', { kind: 'roots', variable: 'x', roots: [{ re: 2, im: 0, exact: '2' }, { re: -3, im: 0, exact: '-3' }] }],
    ['Solve |x - 3| = |x + 1|', 'x = 1', { kind: 'roots', variable: 'x', roots: [{ re: 1, im: 0, exact: '1' }] }],
  ])('%j → %s', (text, finalAnswer, answer) => {
    const solution = solved(text);
    expect(solution).toMatchObject({ category: 'absolute_value', finalAnswer });
    expect(solution.answer).toEqual(answer);
  });

  it('keeps a fractional end exact: |3x - 1| < 2 is -1/3 < x < 1', () => {
    const solution = solved('Solve |3x - 1| < 2');
    expect(solution.finalAnswer).toBe('-1/3 < x < 1');
    expect(solution.answer).toEqual({ kind: 'interval_set', variable: 'x', intervals: [{ from: { value: -1 / 3, exact: '-1/3', closed: false }, to: { value: 1, exact: '1', closed: false } }] });
  });

  it('shows the cases, the combined set in interval notation and the check', () => {
    const titles = solved('Solve |2x+1| >= 3').steps.map((s) => s.title);
    expect(titles).toEqual(expect.arrayContaining(['Split into cases where each absolute value keeps its sign', 'Combine the cases', 'Check']));
    expect(titles.filter((t) => t.startsWith('Case '))).toHaveLength(2);
    expect(solved('Solve |2x+1| >= 3').steps.find((s) => s.title === 'Combine the cases')?.detail).toContain('(-\\infty, -2] \\cup [1, \\infty)');
  });

  it.each([
    ['Solve |x^2 - 4| < 5', /outside the case method: a term of degree 2/],
    ['Solve x|x| < 4', /outside the case method: .*multiplies two expressions in x/],
    ['Solve |x - 3| / x < 1', /outside the case method: .*divides by an expression in x/],
    ['Solve |x - 3| < |y|', /one relation in 2 unknowns/],
    ['Solve |x-1| + |x-2| + |x-3| + |x-4| + |x-5| + |x-6| + |x-7| < 30', /more than 6 absolute values/],
  ])('refuses %j by name, never answers it', (text, reason) => {
    const outcome = solveProblem(text);
    expect(outcome.solved).toBe(false);
    expect(outcome.solved ? '' : outcome.reason).toMatch(reason);
  });
});

describe('a model\'s final answer to an absolute-value inequality, checked set against set', () => {
  it.each([
    ['Solve |x - 3| < 5', '-2 < x < 8', 'agrees'],
    ['Solve |x - 3| < 5', '\\(-2 < x < 8\\)', 'agrees'],
    ['Solve |x - 3| < 5', 'x > -2 and x < 8', 'agrees'],
    ['Solve |x - 3| < 5', 'x ∈ (-2, 8)', 'agrees'],
    ['Solve |x - 3| < 5', '-2 \\le x \\le 8', 'disagrees'],
    ['Solve |x - 3| < 5', 'x < -2 or x > 8', 'disagrees'],
    ['Solve |x - 3| < 5', 'x = 8 or x = -2', 'disagrees'],
    ['Solve |x - 3| < 5', 'no solution', 'disagrees'],
    ['Solve |2x+1| >= 3', 'x ≤ -2 or x ≥ 1', 'agrees'],
    ['Solve |2x+1| >= 3', '(-∞, -2] ∪ [1, ∞)', 'agrees'],
    ['Solve |2x+1| >= 3', '(-∞, -2) ∪ (1, ∞)', 'disagrees'],
    ['Solve |3x - 1| < 2', '-\\frac{1}{3} < x < 1', 'agrees'],
    ['Solve |3x - 1| < 2', '-0.33 < x < 1', 'agrees'],
    ['Solve |3x - 1| < 2', '-0.4 < x < 1', 'disagrees'],
    ['Solve |x - 3| < 5', 'somewhere near 3', 'unchecked'],
    ['Solve |x - 3| < 5', 'x < 8 or x < 9', 'unchecked'],
  ])('%j answered %j: %s', (problem, answer, verdict) => {
    expect(checkFinalAnswer(problem, answer).verdict).toBe(verdict);
  });

  it('two translations with one solution set are one answer, another set is not', () => {
    const [a, b, c] = [solved('Solve |x - 3| < 5').answer, solved('Solve |n - 3| < 5').answer, solved('Solve |x - 3| <= 5').answer];
    expect(sameAnswer(a, b)).toBe(true);
    expect(sameAnswer(a, c)).toBe(false);
  });
});
