import { checkFinalAnswer } from '../check/answer-check.js';
import { mj } from '../core/mathjs.js';
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

/** The answer's formula evaluated at positive values, put back into the formula it came from. */
function satisfies(solution: EngineSolution, formula: string, unknown: string): boolean {
  if (solution.answer.kind !== 'expression') return false;
  const answer = mj.parse(solution.answer.expression);
  const [lhs, rhs] = formula.split('=').map((side) => mj.parse(side));
  return [0.7, 1.9, 3.3].every((base) => {
    const scope: Record<string, number> = Object.fromEntries(solution.answer.kind === 'expression' ? solution.answer.variables.map((v, i) => [v, base + i * 1.1]) : []);
    scope[unknown] = answer.evaluate({ ...scope }) as number;
    return Math.abs((lhs!.evaluate({ ...scope }) as number) - (rhs!.evaluate({ ...scope }) as number)) < 1e-9;
  });
}

describe('rearranging a formula for the asked-for letter', () => {
  it.each([
    ['Make t the subject of v = u + at', 't = (-u + v)/a, where a ≠ 0', 'v = u + a*t', 't'],
    ['Make w the subject of A = l*w', 'w = A/l, where l ≠ 0', 'A = l*w', 'w'],
    ['Make l the subject of P = 2(l + w)', 'l = (1/2)P - w', 'P = 2*(l + w)', 'l'],
    ['Express x in terms of y: y = 2x + 3', 'x = (1/2)y - (3/2)', 'y = 2*x + 3', 'x'],
    ['Rearrange v = u + a*t to make u the subject', 'u = -at + v', 'v = u + a*t', 'u'],
    ['Solve for b: a(b + c) = d', 'b = (-ac + d)/a, where a ≠ 0', 'a*(b + c) = d', 'b'],
    ['Make c the subject of E = m*c^2', 'c = √(E/m), where m ≠ 0 and c ≥ 0 (for c ≤ 0 take −√(E/m))', 'E = m*c^2', 'c'],
  ])('%j → %j', (text, answer, formula, unknown) => {
    const solution = solved(text);
    expect(solution).toMatchObject({ category: 'rearrangement', finalAnswer: answer });
    expect(solution.steps[solution.steps.length - 1]!.title).toBe('Check by substitution');
    expect(satisfies(solution, formula, unknown)).toBe(true);
  });

  it('states the division condition in the working', () => {
    const { steps } = solved('Make t the subject of v = u + at');
    expect(steps.map((s) => s.title)).toContain('Divide both sides by a');
    expect(steps.find((s) => s.title === 'Divide both sides by a')!.detail).toContain('\\neq 0');
  });

  it('accepts a model answer equal to the rearranged formula and rejects a wrong one', () => {
    expect(checkFinalAnswer('Make t the subject of v = u + at', 't = (v - u)/a').verdict).toBe('agrees');
    expect(checkFinalAnswer('Make t the subject of v = u + at', 't = (u - v)/a').verdict).toBe('disagrees');
    expect(checkFinalAnswer('Solve for t: v = u + at', 't = (v - u)/a').verdict).toBe('agrees');
    expect(checkFinalAnswer('Solve for t: v = u + at', 't = (v + u)/a').verdict).toBe('disagrees');
    expect(checkFinalAnswer('Solve for t: v = u + at', 'u = v - at').verdict).toBe('disagrees');
  });

  it.each([
    ['Make t the subject of v = u + at^2 + t', 'non-linearly'],
    ['Make x the subject of y = x*z + x^2', 'non-linearly'],
    ['Make t the subject of A = P*2^t', 'not a polynomial'],
    ['Make x the subject of y = sqrt(x) + z', 'not a polynomial'],
    ['Make u the subject of a = (v - u)/t', 'not a polynomial'],
    ['Make t the subject of a*t = b*t', 'every term holds t'],
    ['Express x in terms of y: x + y + z = 1', 'in terms of y'],
  ])('refuses %j', (text, reason) => {
    const outcome = solveProblem(text);
    expect(outcome.solved).toBe(false);
    expect(outcome.solved ? '' : outcome.reason).toContain(reason);
  });

  it('still refuses a formula with no rearrangement asked for', () => {
    expect(solveProblem('v = u + at')).toMatchObject({ solved: false, reason: 'one relation in 4 unknowns' });
  });
});
