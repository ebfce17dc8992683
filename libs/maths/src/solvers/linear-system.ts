import type { MathNode } from 'mathjs';
import { texOf } from '../core/mathjs.js';
import type { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import type { EngineSolution, Intent, SolverResult, Step } from '../types.js';
import { decline, m } from './context.js';
import { exactWithDecimal } from './format.js';

export interface SystemEquation {
  readonly lhs: MathNode;
  readonly rhs: MathNode;
  readonly difference: Polynomial;
}

/**
 * 2×2 and 3×3 linear systems by elimination: each variable is eliminated from the equations below
 * its pivot (the multiple subtracted is shown), then back-substitution; the solution is checked by
 * substituting it into every original equation with exact arithmetic.
 */
export function solveLinearSystem(equations: readonly SystemEquation[], variables: readonly string[], intent: Intent): SolverResult {
  const n = variables.length;
  const rows: Rational[][] = [];
  for (const eq of equations) {
    const parts = eq.difference.linearParts();
    if (parts === undefined) return decline('linear_system', 'an equation of the system is not linear');
    rows.push([...variables.map((v) => parts.coefficients.get(v) ?? Rational.ZERO), parts.constant.neg()]);
  }
  const problem = equations.map((e) => `${texOf(e.lhs)} = ${texOf(e.rhs)}`).join(', \\; ');
  const steps: Step[] = [
    {
      title: 'Write each equation in standard form',
      detail: rows.map((row, i) => `(${i + 1}) ${m(rowTex(row, variables))}`).join('; '),
    },
  ];
  const labels = rows.map((_, i) => `(${i + 1})`);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    while (pivot < n && rows[pivot]![col]!.isZero) pivot++;
    if (pivot === n) return singularSystem(equations, variables, intent, problem, steps);
    if (pivot !== col) {
      [rows[col], rows[pivot]] = [rows[pivot]!, rows[col]!];
      [labels[col], labels[pivot]] = [labels[pivot]!, labels[col]!];
      steps.push({ title: 'Reorder the equations', detail: `Use ${labels[col]} to eliminate ${m(variables[col]!)}.` });
    }
    for (let r = col + 1; r < n; r++) {
      const factor = rows[r]![col]!.div(rows[col]![col]!);
      if (factor.isZero) continue;
      rows[r] = rows[r]!.map((value, j) => value.sub(factor.mul(rows[col]![j]!)));
      const label = `(${labels[r]!.slice(1, -1)}′)`;
      steps.push({
        title: `Eliminate ${variables[col]} from ${labels[r]}`,
        detail: `Subtract ${m(factor.toTex())} × ${labels[col]} from ${labels[r]}: ${label} ${m(rowTex(rows[r]!, variables))}`,
      });
      labels[r] = label;
    }
  }
  const solution: Rational[] = new Array<Rational>(n).fill(Rational.ZERO);
  for (let r = n - 1; r >= 0; r--) {
    let rest = rows[r]![n]!;
    for (let j = r + 1; j < n; j++) rest = rest.sub(rows[r]![j]!.mul(solution[j]!));
    const value = rest.div(rows[r]![r]!);
    solution[r] = value;
    steps.push({
      title: `Solve for ${variables[r]}`,
      detail: r === n - 1 ? `From ${labels[r]}: ${m(`${variables[r]} = ${value.toTex()}`)}` : `Substitute the values found into ${labels[r]}: ${m(`${variables[r]} = ${value.toTex()}`)}`,
    });
  }
  const values = Object.fromEntries(variables.map((v, i) => [v, solution[i]!]));
  for (const eq of equations) {
    if (!eq.difference.evaluate(values).isZero) throw new Error('system solution failed its substitution check');
  }
  steps.push({ title: 'Check by substitution', detail: `${m(variables.map((v, i) => `${v} = ${solution[i]!.toTex()}`).join(', '))} satisfies every original equation.` });
  const solved: EngineSolution = {
    solved: true,
    category: 'linear_system',
    intent,
    problem,
    steps,
    finalAnswer: variables.map((v, i) => `${v} = ${exactWithDecimal(solution[i]!)}`).join(', '),
    answer: { kind: 'assignment', values: Object.fromEntries(variables.map((v, i) => [v, solution[i]!.toNumber()])), exact: Object.fromEntries(variables.map((v, i) => [v, solution[i]!.toString()])) },
    verification: 'substituted into every equation (exact)',
  };
  return solved;
}

function rowTex(row: readonly Rational[], variables: readonly string[]): string {
  let out = '';
  variables.forEach((v, i) => {
    const c = row[i]!;
    if (c.isZero) return;
    const magnitude = c.abs();
    const coef = magnitude.equals(Rational.ONE) ? '' : magnitude.toTex();
    out += out === '' ? `${c.sign < 0 ? '-' : ''}${coef}${v}` : ` ${c.sign < 0 ? '-' : '+'} ${coef}${v}`;
  });
  return `${out === '' ? '0' : out} = ${row[variables.length]!.toTex()}`;
}

/**
 * A system without a unique solution, decided exactly by reducing it to row echelon form: a row
 * 0 = c (c ≠ 0) means no solution; otherwise, with one free unknown, every value of it gives a
 * solution, written as the other unknowns in terms of it and checked by substituting two values of
 * the free unknown into every original equation. More free unknowns are declined.
 */
function singularSystem(equations: readonly SystemEquation[], variables: readonly string[], intent: Intent, problem: string, steps: Step[]): SolverResult {
  const n = variables.length;
  const rows = equations.map((eq) => {
    const parts = eq.difference.linearParts()!;
    return [...variables.map((v) => parts.coefficients.get(v) ?? Rational.ZERO), parts.constant.neg()];
  });
  const pivots: number[] = [];
  let r = 0;
  for (let col = 0; col < n && r < rows.length; col++) {
    const p = rows.findIndex((row, i) => i >= r && !row[col]!.isZero);
    if (p < 0) continue;
    [rows[r], rows[p]] = [rows[p]!, rows[r]!];
    const lead = rows[r]![col]!;
    rows[r] = rows[r]!.map((v) => v.div(lead));
    for (let i = 0; i < rows.length; i++) {
      if (i === r || rows[i]![col]!.isZero) continue;
      const factor = rows[i]![col]!;
      rows[i] = rows[i]!.map((v, j) => v.sub(factor.mul(rows[r]![j]!)));
    }
    pivots.push(col);
    r++;
  }
  steps.push({ title: 'Reduce the system', detail: rows.map((row) => m(rowTex(row, variables))).join('; ') });
  const contradiction = rows.find((row) => row.slice(0, n).every((c) => c.isZero) && !row[n]!.isZero);
  if (contradiction !== undefined) {
    steps.push({ title: 'A contradiction', detail: `The unknowns cancel and leave ${m(`0 = ${contradiction[n]!.toTex()}`)}, which is false: no values satisfy every equation.` });
    return { solved: true, category: 'linear_system', intent, problem, steps, finalAnswer: 'no solution', answer: { kind: 'no_solution' }, verification: 'eliminating the unknowns leaves a false statement (exact)' };
  }
  const free = variables.filter((_, i) => !pivots.includes(i));
  if (free.length !== 1) return decline('linear_system', `the system has infinitely many solutions with ${free.length} free unknowns`);
  const freeVariable = free[0]!;
  const freeIndex = variables.indexOf(freeVariable);
  // Each pivot row reads: pivotVariable + c·free = constant.
  const expressions = pivots.map((col, i) => ({ variable: variables[col]!, constant: rows[i]![n]!, slope: rows[i]![freeIndex]!.neg() }));
  for (const trial of [Rational.ZERO, Rational.of(7, 3)]) {
    const values: Record<string, Rational> = { [freeVariable]: trial };
    for (const e of expressions) values[e.variable] = e.constant.add(e.slope.mul(trial));
    if (equations.some((eq) => !eq.difference.evaluate(values).isZero)) throw new Error('a solution of the dependent system failed its substitution check');
  }
  const written = expressions.map((e) => `${e.variable} = ${linearText(e.constant, e.slope, freeVariable)}`).join(', ');
  steps.push({ title: `The equations are dependent: ${freeVariable} is free`, detail: `Every value of ${m(freeVariable)} gives a solution: ${written}.` });
  return {
    solved: true,
    category: 'linear_system',
    intent,
    problem,
    steps,
    finalAnswer: `infinitely many solutions: ${written}, for every real ${freeVariable}`,
    answer: { kind: 'all_values', variable: freeVariable },
    verification: `two values of ${freeVariable} substituted into every equation (exact)`,
  };
}

function linearText(constant: Rational, slope: Rational, variable: string): string {
  const term = slope.isZero ? '' : `${slope.abs().equals(Rational.ONE) ? '' : slope.abs().toString()}${variable}`;
  if (constant.isZero) return term === '' ? '0' : `${slope.sign < 0 ? '-' : ''}${term}`;
  return term === '' ? constant.toString() : `${constant.toString()} ${slope.sign < 0 ? '-' : '+'} ${term}`;
}
