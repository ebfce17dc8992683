import type { MathNode } from 'mathjs';
import type { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import { texOf } from '../core/mathjs.js';
import type { EngineSolution, Intent, Step } from '../types.js';
import { m } from './context.js';
import { exactWithDecimal, rationalTex } from './format.js';

/**
 * a·x + b = c·x + d, solved by collecting like terms and dividing; checked by substituting the
 * solution into both original sides with exact arithmetic.
 */
export function solveLinearEquation(lhs: MathNode, rhs: MathNode, left: Polynomial, right: Polynomial, variable: string, intent: Intent): EngineSolution {
  const problem = `${texOf(lhs)} = ${texOf(rhs)}`;
  const difference = left.sub(right);
  const coefficients = difference.coefficients(variable)!;
  const b = coefficients[0] ?? Rational.ZERO;
  const a = coefficients[1] ?? Rational.ZERO;
  const steps: Step[] = [{ title: 'Write the equation', detail: m(problem) }];
  if (left.toTex() !== texOf(lhs) || right.toTex() !== texOf(rhs)) {
    steps.push({ title: 'Expand and collect like terms on each side', detail: m(`${left.toTex()} = ${right.toTex()}`) });
  }
  const moved = `${rationalCoefTex(a)}${variable} = ${b.neg().toTex()}`;
  steps.push({
    title: `Move the ${variable} terms to the left and the numbers to the right`,
    detail: `Subtract ${m(termsTex(right, variable))} from both sides and move the constant: ${m(moved)}`,
  });
  if (a.isZero) {
    const always = b.isZero;
    steps.push({
      title: always ? `Every value of ${variable} works` : 'No value works',
      detail: always ? `The ${variable} terms cancel and ${m('0 = 0')} holds for every ${variable}.` : `The ${variable} terms cancel, leaving ${m(`0 = ${b.neg().toTex()}`)}, which is false.`,
    });
    return {
      solved: true,
      category: 'linear_equation',
      intent,
      problem,
      steps,
      finalAnswer: always ? `every real ${variable}` : 'no solution',
      answer: always ? { kind: 'all_values', variable } : { kind: 'no_solution' },
      verification: always ? 'both sides reduce to the same expression' : 'both sides differ by a non-zero constant',
    };
  }
  const solution = b.neg().div(a);
  if (!a.equals(Rational.ONE)) {
    steps.push({ title: `Divide both sides by ${a.toString()}`, detail: m(`${variable} = \\frac{${b.neg().toTex()}}{${a.toTex()}} = ${solution.toTex()}`) });
  }
  const l = left.evaluate({ [variable]: solution });
  const r = right.evaluate({ [variable]: solution });
  if (!l.equals(r)) throw new Error('linear solution failed its substitution check');
  steps.push({
    title: 'Check by substitution',
    detail: `With ${m(`${variable} = ${solution.toTex()}`)}, the left side is ${m(l.toTex())} and the right side is ${m(r.toTex())}: they agree.`,
  });
  return {
    solved: true,
    category: 'linear_equation',
    intent,
    problem,
    steps,
    finalAnswer: `${variable} = ${exactWithDecimal(solution)}`,
    answer: { kind: 'roots', variable, roots: [{ re: solution.toNumber(), im: 0, exact: solution.toString() }] },
    verification: 'substituted into both sides (exact)',
  };
}

function rationalCoefTex(a: Rational): string {
  if (a.equals(Rational.ONE)) return '';
  if (a.neg().equals(Rational.ONE)) return '-';
  return rationalTex(a);
}

function termsTex(p: Polynomial, variable: string): string {
  const c = p.coefficients(variable);
  const a = c?.[1];
  return a === undefined || a.isZero ? '0' : `${rationalCoefTex(a)}${variable}`;
}
