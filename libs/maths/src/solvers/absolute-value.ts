import { isFunctionNode, isParenthesisNode, type MathNode } from 'mathjs';
import { texOf } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import type { Intent, SolverResult, Step } from '../types.js';
import { m } from './context.js';
import { exactWithDecimal } from './format.js';

const unwrap = (node: MathNode): MathNode => (isParenthesisNode(node) ? unwrap(node.content) : node);

/**
 * |linear| = linear (in one unknown): split into the two cases L = R and L = −R, solve each exactly,
 * and keep a candidate only when it satisfies the original equation (|L| = R needs R ≥ 0). Every kept
 * root is substituted into the original equation; a case whose unknown cancels is handled as "no
 * root" or "every value" of that case. Undefined when the equation is not of this shape.
 */
export function solveAbsoluteValue(lhs: MathNode, rhs: MathNode, variable: string, intent: Intent): SolverResult {
  const [absSide, otherSide] = isAbs(lhs) ? [lhs, rhs] : isAbs(rhs) ? [rhs, lhs] : [undefined, undefined];
  if (absSide === undefined || otherSide === undefined) return undefined;
  const inside = Polynomial.fromNode((unwrap(absSide) as MathNode & { args: MathNode[] }).args[0]!);
  const other = Polynomial.fromNode(otherSide);
  if (inside === undefined || other === undefined || inside.degree() > 1 || other.degree() > 1) return undefined;
  const problem = `${texOf(lhs)} = ${texOf(rhs)}`;
  const steps: Step[] = [{ title: 'Write the equation', detail: m(problem) }];
  const constant = other.constantValue();
  if (constant !== undefined && constant.sign < 0) {
    steps.push({ title: 'An absolute value is never negative', detail: `${m(`|${inside.toTex()}| \\ge 0`)}, so it cannot equal ${m(constant.toTex())}.` });
    return { solved: true, category: 'absolute_value', intent, problem, steps, finalAnswer: 'no solution', answer: { kind: 'no_solution' }, verification: 'an absolute value is never negative' };
  }
  steps.push({ title: 'Split into two cases', detail: `${m(`|A| = B`)} means ${m('A = B')} or ${m('A = -B')} (with ${m('B \\ge 0')}): ${m(`${inside.toTex()} = ${other.toTex()}`)} or ${m(`${inside.toTex()} = -(${other.toTex()})`)}.` });
  const roots: Rational[] = [];
  for (const [sign, label] of [[Rational.ONE, 'first'], [Rational.of(-1), 'second']] as const) {
    const difference = inside.sub(other.scale(sign));
    const [b = Rational.ZERO, a = Rational.ZERO] = difference.coefficients(variable) ?? [];
    if (a.isZero) {
      if (b.isZero) return { solved: false, inScope: true, category: 'absolute_value', reason: 'a case holds for every value of the unknown: the solution is an interval, which the engine does not write yet' };
      steps.push({ title: `The ${label} case has no root`, detail: `The ${variable} terms cancel and leave a false statement.` });
      continue;
    }
    const root = b.neg().div(a);
    const valid = other.evaluate({ [variable]: root }).sign >= 0;
    steps.push({ title: `Solve the ${label} case`, detail: `${m(`${variable} = ${root.toTex()}`)}${valid ? '' : `, rejected: the right side would be negative there`}` });
    if (valid && !roots.some((r) => r.equals(root))) roots.push(root);
  }
  for (const root of roots) {
    const left = inside.evaluate({ [variable]: root }).abs();
    const right = other.evaluate({ [variable]: root });
    if (!left.equals(right)) throw new Error('an absolute-value root failed its substitution check');
  }
  steps.push({ title: 'Check by substitution', detail: roots.length === 0 ? 'No candidate survives.' : roots.map((r) => `${m(`${variable} = ${r.toTex()}`)}: ${m(`|${inside.evaluate({ [variable]: r }).toTex()}| = ${other.evaluate({ [variable]: r }).toTex()}`)}`).join('; ') });
  roots.sort((a, b) => b.compare(a));
  return {
    solved: true,
    category: 'absolute_value',
    intent,
    problem,
    steps,
    finalAnswer: roots.length === 0 ? 'no solution' : roots.map((r) => `${variable} = ${exactWithDecimal(r)}`).join(' or '),
    answer: roots.length === 0 ? { kind: 'no_solution' } : { kind: 'roots', variable, roots: roots.map((r) => ({ re: r.toNumber(), im: 0, exact: r.toString() })) },
    verification: 'each root substituted into the original equation (exact)',
  };
}

function isAbs(node: MathNode): boolean {
  const inner = unwrap(node);
  return isFunctionNode(inner) && inner.fn.name === 'abs' && inner.args.length === 1;
}
