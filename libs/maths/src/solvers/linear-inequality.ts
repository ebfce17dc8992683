import type { MathNode } from 'mathjs';
import { texOf } from '../core/mathjs.js';
import type { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import type { EngineSolution, Intent, Relation, Step } from '../types.js';
import { m } from './context.js';
import { exactWithDecimal } from './format.js';

const TEX: Record<Relation, string> = { '<': '<', '<=': '\\le', '>': '>', '>=': '\\ge' };
const FLIP: Record<Relation, Relation> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };
const TEXT: Record<Relation, string> = { '<': '<', '<=': '≤', '>': '>', '>=': '≥' };

/**
 * a·x + b (relation) c·x + d: collect terms, divide by the coefficient (reversing the sign when it is
 * negative); checked on the boundary and one point each side.
 */
export function solveLinearInequality(lhs: MathNode, rhs: MathNode, op: Relation, left: Polynomial, right: Polynomial, variable: string, intent: Intent): EngineSolution | undefined {
  const difference = left.sub(right);
  const [b = Rational.ZERO, a = Rational.ZERO] = difference.coefficients(variable) ?? [];
  if (a.isZero) return undefined;
  const x = variable;
  const problem = `${texOf(lhs)} ${TEX[op]} ${texOf(rhs)}`;
  const bound = b.neg().div(a);
  const finalOp = a.sign < 0 ? FLIP[op] : op;
  const steps: Step[] = [
    { title: 'Write the inequality', detail: m(problem) },
    { title: `Collect the ${x} terms on the left and the numbers on the right`, detail: m(`${a.equals(Rational.ONE) ? '' : a.toTex()}${x} ${TEX[op]} ${b.neg().toTex()}`) },
    {
      title: a.sign < 0 ? `Divide by ${a.toString()} and reverse the inequality (dividing by a negative number)` : `Divide both sides by ${a.toString()}`,
      detail: m(`${x} ${TEX[finalOp]} ${bound.toTex()}`),
    },
  ];
  const holds = (value: Rational): boolean => {
    const d = difference.evaluate({ [x]: value });
    return op === '<' ? d.sign < 0 : op === '<=' ? d.sign <= 0 : op === '>' ? d.sign > 0 : d.sign >= 0;
  };
  const inside = finalOp === '<' || finalOp === '<=' ? bound.sub(Rational.ONE) : bound.add(Rational.ONE);
  const outside = finalOp === '<' || finalOp === '<=' ? bound.add(Rational.ONE) : bound.sub(Rational.ONE);
  if (!holds(inside) || holds(outside) || holds(bound) !== (op === '<=' || op === '>=')) throw new Error('inequality failed its test-point check');
  steps.push({
    title: 'Check with test points',
    detail: `${m(`${x} = ${inside.toTex()}`)} satisfies the original inequality and ${m(`${x} = ${outside.toTex()}`)} does not.`,
  });
  return {
    solved: true,
    category: 'linear_inequality',
    intent,
    problem,
    steps,
    finalAnswer: `${x} ${TEXT[finalOp]} ${exactWithDecimal(bound)}`,
    answer: { kind: 'inequality', variable: x, relation: finalOp, bound: bound.toNumber(), exactBound: bound.toString() },
    verification: 'the boundary and a test point on each side substituted (exact)',
  };
}
