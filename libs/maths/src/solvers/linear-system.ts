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
    if (pivot === n) return decline('linear_system', 'the system has no unique solution (its equations are dependent or inconsistent)');
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
    answer: { kind: 'assignment', values: Object.fromEntries(variables.map((v, i) => [v, solution[i]!.toNumber()])) },
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
