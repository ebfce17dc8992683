import { isOperatorNode, isParenthesisNode, type MathNode } from 'mathjs';
import { evaluateReal, texOf } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import { mathStatements } from '../text/extract.js';
import type { Answer, EngineSolution, SolverResult, Step } from '../types.js';
import { calculusTarget } from './calculus-target.js';
import { type ProblemContext, decline, m } from './context.js';
import { exactWithDecimal } from './format.js';
import { sameNumber } from '../core/same-number.js';

const APPROACH = /(?:as\s+)?\b([a-z])\s*(?:->|-+>|→|approaches|tends to|goes to)\s*(-?\s*(?:\d+(?:\.\d+)?(?:\/\d+)?)|(?:\+|-)?\s*(?:infinity|inf\b|∞))/i;

/**
 * Limits of rational functions: direct substitution when the denominator is not zero there;
 * otherwise cancel the common factor (x - a) as often as it divides both, then substitute; a
 * remaining zero denominator gives ±∞ or "does not exist"; at ±∞, compare degrees. Checked
 * numerically by evaluating close to the point (or far out).
 */
export function solveLimit(ctx: ProblemContext): SolverResult {
  const approach = APPROACH.exec(ctx.normalised);
  if (approach === null) return decline('limit', 'the point the variable approaches was not found');
  const rest = ctx.normalised.replace(approach[0], ' ');
  const target = calculusTarget(ctx, mathStatements(rest));
  if (target === undefined || target.variable !== approach[1]!.toLowerCase()) return decline('limit', 'no rational function of the approaching variable found');
  const { node, variable: x } = target;
  const body = strip(node);
  const [numNode, denNode] = isOperatorNode(body) && body.fn === 'divide' ? [body.args[0]!, body.args[1]!] : [body, undefined];
  const numerator = Polynomial.fromNode(numNode);
  const denominator = denNode === undefined ? Polynomial.constant(Rational.ONE) : Polynomial.fromNode(denNode);
  if (numerator === undefined || denominator === undefined || denominator.isZero) return { solved: false, inScope: false, reason: 'limits of non-rational functions are outside the engine\'s scope' };
  const pointText = approach[2]!.replace(/\s+/g, '');
  const steps: Step[] = [];
  let answer: Answer;
  let finalAnswer: string;
  if (/inf|∞/i.test(pointText)) {
    const sign = pointText.startsWith('-') ? -1 : 1;
    steps.push({ title: 'Write the limit', detail: m(`\\lim_{${x} \\to ${sign < 0 ? '-' : ''}\\infty} ${texOf(node)}`) });
    const p = numerator.coefficients(x)!;
    const q = denominator.coefficients(x)!;
    const [dp, dq] = [p.length - 1, q.length - 1];
    const lead = p.at(-1)!.div(q.at(-1)!);
    steps.push({ title: 'Compare the degrees', detail: `The numerator has degree ${dp} and the denominator degree ${dq}; divide every term by ${m(`${x}^{${Math.max(dq, 0)}}`)}.` });
    if (dp < dq) {
      answer = { kind: 'limit', value: 0 };
      finalAnswer = '0';
      steps.push({ title: 'The denominator grows faster', detail: m('\\text{limit} = 0') });
    } else if (dp === dq) {
      answer = { kind: 'limit', value: lead.toNumber() };
      finalAnswer = exactWithDecimal(lead);
      steps.push({ title: 'Equal degrees: the ratio of leading coefficients', detail: m(`\\frac{${p.at(-1)!.toTex()}}{${q.at(-1)!.toTex()}} = ${lead.toTex()}`) });
    } else {
      const goesUp = lead.sign * (sign < 0 && (dp - dq) % 2 === 1 ? -1 : 1) > 0;
      answer = { kind: 'limit', value: goesUp ? 'infinity' : '-infinity' };
      finalAnswer = goesUp ? '∞' : '-∞';
      steps.push({ title: 'The numerator grows faster', detail: `The expression behaves like ${m(`${lead.toTex()} ${x}^{${dp - dq}}`)}, so the limit is ${m(goesUp ? '\\infty' : '-\\infty')}.` });
    }
    numericCheck(node, x, sign * 1e6, answer);
  } else {
    const a = Rational.parse(pointText) ?? parseFraction(pointText);
    if (a === undefined) return decline('limit', 'the approached point is not a number');
    steps.push({ title: 'Write the limit', detail: m(`\\lim_{${x} \\to ${a.toTex()}} ${texOf(node)}`) });
    let p = numerator;
    let q = denominator;
    const atA = (poly: Polynomial): Rational => poly.evaluate({ [x]: a });
    steps.push({ title: 'Try direct substitution', detail: `Numerator ${m(atA(p).toTex())}, denominator ${m(atA(q).toTex())}.` });
    let cancelled = 0;
    while (atA(p).isZero && atA(q).isZero && cancelled < 10) {
      const linear = Polynomial.fromCoefficients(x, [a.neg(), Rational.ONE]);
      p = divideExact(p, a, x);
      q = divideExact(q, a, x);
      cancelled++;
      steps.push({ title: `Both are 0: cancel the common factor ${linear.toDisplay()}`, detail: m(`\\frac{${p.toTex()}}{${q.toTex()}}`) });
    }
    if (!atA(q).isZero) {
      const value = atA(p).div(atA(q));
      if (cancelled > 0) steps.push({ title: 'Substitute again', detail: m(`\\frac{${atA(p).toTex()}}{${atA(q).toTex()}} = ${value.toTex()}`) });
      answer = { kind: 'limit', value: value.toNumber() };
      finalAnswer = exactWithDecimal(value);
    } else {
      // q(a) = 0, p(a) ≠ 0: the expression blows up; its sign on each side decides.
      const left = evaluateReal(node, { [x]: a.toNumber() - 1e-7 })!;
      const right = evaluateReal(node, { [x]: a.toNumber() + 1e-7 })!;
      const same = Math.sign(left) === Math.sign(right);
      answer = { kind: 'limit', value: same ? (right > 0 ? 'infinity' : '-infinity') : 'does_not_exist' };
      finalAnswer = same ? (right > 0 ? '∞' : '-∞') : 'does not exist';
      steps.push({
        title: 'The denominator is 0 and the numerator is not',
        detail: same ? `The expression grows without bound with the same sign on both sides: the limit is ${m(right > 0 ? '\\infty' : '-\\infty')}.` : 'The one-sided limits are +∞ and -∞, so the limit does not exist.',
      });
    }
    numericCheck(node, x, a.toNumber(), answer);
  }
  const solved: EngineSolution = {
    solved: true,
    category: 'limit',
    intent: 'limit',
    problem: `lim ${x}→${pointText} ${node.toString({ implicit: 'hide' })}`,
    steps,
    finalAnswer,
    answer,
    verification: 'compared with the function evaluated next to the point',
  };
  return solved;
}

function parseFraction(text: string): Rational | undefined {
  const match = /^(-?\d+)\/(\d+)$/.exec(text);
  return match === null ? undefined : Rational.of(BigInt(match[1]!), BigInt(match[2]!));
}

function divideExact(p: Polynomial, a: Rational, x: string): Polynomial {
  const c = p.coefficients(x)!;
  const n = c.length - 1;
  const quotient: Rational[] = new Array<Rational>(Math.max(n, 1)).fill(Rational.ZERO);
  let carry = Rational.ZERO;
  for (let i = n; i >= 1; i--) {
    carry = carry.mul(a).add(c[i]!);
    quotient[i - 1] = carry;
  }
  return Polynomial.fromCoefficients(x, quotient);
}

function numericCheck(node: MathNode, x: string, point: number, answer: Answer): void {
  if (answer.kind !== 'limit') return;
  const near = Math.abs(point) >= 1e6 ? [point, point * 10] : [point - 1e-6, point + 1e-6];
  const values = near.map((v) => evaluateReal(node, { [x]: v }));
  if (values.some((v) => v === undefined)) throw new Error('limit check could not evaluate the function');
  const [v1, v2] = values as [number, number];
  if (typeof answer.value === 'number') {
    // A sampled plausibility check of a limit found exactly: 10^-6 from the point the function is off its
    // limit by about 10^-6 of its slope, whatever the limit's size, so the scale is 1, not the limit.
    const limit = answer.value;
    if (![v1, v2].every((v) => sameNumber(v, limit, { relative: 1e-3, scale: 1 }))) throw new Error('limit failed its numeric check');
  } else if (answer.value === 'infinity' && !(v1 > 1e3 && v2 > 1e3)) throw new Error('limit failed its numeric check');
  else if (answer.value === '-infinity' && !(v1 < -1e3 && v2 < -1e3)) throw new Error('limit failed its numeric check');
  else if (answer.value === 'does_not_exist' && !(Math.sign(v1) !== Math.sign(v2) && Math.abs(v1) > 1e3)) throw new Error('limit failed its numeric check');
}

function strip(node: MathNode): MathNode {
  return isParenthesisNode(node) ? strip(node.content) : node;
}
