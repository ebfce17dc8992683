import type { MathNode } from 'mathjs';
import { evaluateReal, magnitudeOfTerms, mj, texOf } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import type { EngineDecline, Intent, SolverResult, Step } from '../types.js';
import { m } from './context.js';
import { sameNumber } from '../core/same-number.js';

/** Wording that asks for a formula rearranged, not a value: "make t the subject", "express x in terms of y", "solve for t". */
const REARRANGE = /\bsubject\b|\bin\s+terms\s+of\b|\bsolve\s+for\b|\brearrang|\bfor\s+[a-z]\s*[.?!]?\s*$/;

/** How many points of positive rational values the rearranged formula is checked at. */
const CHECK_POINTS = 3;

function refuse(reason: string): EngineDecline {
  return { solved: false, inScope: false, category: 'rearrangement', reason };
}

/**
 * A formula rearranged for the unknown the wording asks for ("make t the subject of v = u + at" →
 * t = (v − u)/a). The formula must be a polynomial in its letters in which the unknown appears only
 * to the first power (collected, then divided by its coefficient, the coefficient's ≠ 0 stated when
 * it holds letters) or only squared (the root taken, the sign stated). Anything else — the unknown in
 * an exponent, under a root, in a denominator, or to mixed powers — is refused. The answer is checked
 * by substituting it into the original formula at several points of positive rational values: exactly
 * for a linear unknown, and by evaluating the answer as written for a square root.
 * Undefined when the wording does not ask for a rearrangement.
 */
export function solveRearrangement(lower: string, asks: string | undefined, lhs: MathNode, rhs: MathNode, variables: readonly string[], intent: Intent): SolverResult {
  if (asks === undefined || !variables.includes(asks) || !REARRANGE.test(lower)) return undefined;
  const others = variables.filter((v) => v !== asks).sort();
  const listed = /\bin\s+terms\s+of\s+([a-z](?:\s*(?:,|and)\s*[a-z])*)\b/.exec(lower)?.[1]?.match(/\b[a-z]\b/g) ?? undefined;
  if (listed !== undefined && others.some((v) => !listed.includes(v))) {
    return refuse(`the answer must be in terms of ${listed.join(', ')}, but the formula also holds ${others.filter((v) => !listed.includes(v)).join(', ')}`);
  }
  const left = Polynomial.fromNode(lhs);
  const right = Polynomial.fromNode(rhs);
  if (left === undefined || right === undefined) {
    return refuse(`the formula is not a polynomial in its letters (a letter in a denominator, an exponent, a root or a function); the engine does not rearrange it for ${asks}`);
  }
  const powers = left.sub(right).coefficientsIn(asks);
  const degree = powers.length - 1;
  const inner = powers.slice(1, -1);
  if (degree < 1 || powers[degree]!.isZero) return refuse(`${asks} cancels out of the formula`);
  if (degree > 2 || inner.some((p) => !p.isZero)) return refuse(`${asks} appears non-linearly in the formula (to more than one power, or above the square); the engine does not rearrange it exactly`);
  if (powers[degree]!.variables().length > 0 && powers[0]!.isZero) return refuse(`every term holds ${asks}: dividing it out needs a condition the engine does not state`);
  // powers[degree]·asks^degree + powers[0] = 0, so asks^degree = numerator / denominator.
  let numerator = powers[0]!.neg();
  let denominator = powers[degree]!;
  const constant = denominator.constantValue();
  if (constant !== undefined) {
    numerator = numerator.scale(Rational.ONE.div(constant));
    denominator = Polynomial.constant(Rational.ONE);
  } else if (denominator.toString().startsWith('-')) {
    numerator = numerator.neg();
    denominator = denominator.neg();
  }
  const divides = constant === undefined;
  const quotient = divides ? `${grouped(numerator.toDisplay())}/${denominatorText(denominator.toDisplay())}` : numerator.toDisplay();
  const quotientTex = divides ? `\\frac{${numerator.toTex()}}{${denominator.toTex()}}` : numerator.toTex();
  const quotientSyntax = `(${numerator.toString()}) / (${denominator.toString()})`;
  const expression = degree === 1 ? quotientSyntax : `sqrt(${quotientSyntax})`;
  const answerText = degree === 1 ? quotient : `√(${quotient})`;

  const steps: Step[] = [{ title: 'Write the formula', detail: m(`${texOf(lhs)} = ${texOf(rhs)}`) }];
  const power = degree === 1 ? asks : `${asks}^{2}`;
  const collectedCoefficient = constant === undefined ? `\\left(${denominator.toTex()}\\right) ` : constant.equals(Rational.ONE) ? '' : constant.toTex();
  const collectedSide = constant === undefined ? numerator : numerator.scale(constant);
  steps.push({ title: `Collect the ${asks} terms on one side and everything else on the other`, detail: m(`${collectedCoefficient}${power} = ${collectedSide.toTex()}`) });
  const condition = divides ? `${denominator.toDisplay()} ≠ 0` : undefined;
  if (divides) steps.push({ title: `Divide both sides by ${denominator.toDisplay()}`, detail: `Allowed only where ${m(`${denominator.toTex()} \\neq 0`)}: ${m(`${power} = ${quotientTex}`)}` });
  else if (constant !== undefined && !constant.equals(Rational.ONE)) steps.push({ title: `Divide both sides by ${constant.toString()}`, detail: m(`${power} = ${quotientTex}`) });
  if (degree === 2) {
    steps.push({ title: 'Take the square root', detail: `${m(`${asks} = \\pm\\sqrt{${quotientTex}}`)}; the root ${m(`${asks} \\geq 0`)} is the positive one (for a length, area or other positive quantity), the negative root is ${m(`-\\sqrt{${quotientTex}}`)}.` });
  }
  const check = checkAtPoints(left, right, lhs, rhs, asks, others, expression, numerator, denominator, degree);
  if (typeof check === 'string') return { solved: false, inScope: true, category: 'rearrangement', reason: `the rearranged formula failed its check: ${check}` };
  steps.push({ title: 'Check by substitution', detail: `Substituting ${check.join('; ')} and ${asks} from the rearranged formula into ${m(`${texOf(lhs)} = ${texOf(rhs)}`)}: both sides agree${degree === 1 ? ' exactly' : ''}, at ${CHECK_POINTS} points.` });
  const conditions = [condition, degree === 2 ? `${asks} ≥ 0 (for ${asks} ≤ 0 take −${answerText})` : undefined].filter((c): c is string => c !== undefined);
  return {
    solved: true,
    category: 'rearrangement',
    intent,
    problem: `${texOf(lhs)} = ${texOf(rhs)}`,
    steps,
    finalAnswer: `${asks} = ${answerText}${conditions.length > 0 ? `, where ${conditions.join(' and ')}` : ''}`,
    answer: { kind: 'expression', expression, variables: others, upToConstant: false, subject: asks },
    verification: degree === 1 ? `substituted into the original formula at ${CHECK_POINTS} points of positive rational values (exact)` : `substituted into the original formula at ${CHECK_POINTS} points of positive values (numeric)`,
  };
}

/**
 * Substitutes the rearranged formula into the original at points of positive rational values where
 * the divisor is non-zero (and, for a root, the radicand positive): exactly through the polynomials
 * for a linear unknown, and by evaluating the answer's own expression in the original maths for both.
 * The points checked, described, or what failed.
 */
function checkAtPoints(left: Polynomial, right: Polynomial, lhs: MathNode, rhs: MathNode, asks: string, others: readonly string[], expression: string, numerator: Polynomial, denominator: Polynomial, degree: number): string[] | string {
  const answer = mj.parse(expression);
  const described: string[] = [];
  for (let k = 0; k < 12 && described.length < CHECK_POINTS; k++) {
    const values: Record<string, Rational> = Object.fromEntries(others.map((v, i) => [v, Rational.of(2 + 3 * i + 5 * k, 1 + ((i + k) % 3))]));
    const d = denominator.evaluate(values);
    if (d.isZero) continue;
    const quotient = numerator.evaluate(values).div(d);
    if (degree === 2 && quotient.sign <= 0) continue;
    const scope = Object.fromEntries(others.map((v) => [v, values[v]!.toNumber()]));
    const value = evaluateReal(answer, scope);
    if (value === undefined) return 'the answer does not evaluate at a point';
    if (degree === 1) {
      const exact = { ...values, [asks]: quotient };
      if (!left.evaluate(exact).equals(right.evaluate(exact))) return 'the two sides differ at a point';
      if (!sameNumber(value, quotient.toNumber(), { scale: magnitudeOfTerms(answer, scope) })) return 'the answer as written differs from the exact value';
    }
    const l = evaluateReal(lhs, { ...scope, [asks]: value });
    const r = evaluateReal(rhs, { ...scope, [asks]: value });
    if (l === undefined || r === undefined || !sameNumber(l, r, { scale: Math.max(magnitudeOfTerms(lhs, { ...scope, [asks]: value }) ?? 0, magnitudeOfTerms(rhs, { ...scope, [asks]: value }) ?? 0) })) return 'the two sides differ at a point';
    if (described.length === 0) described.push(others.map((v) => `${v} = ${values[v]!.toString()}`).join(', '));
    else described.push('…');
  }
  return described.length < CHECK_POINTS ? 'too few points where the formula is defined' : [described[0]!, `${CHECK_POINTS - 1} more points`];
}

/** A sum or difference in brackets, so a division applies to all of it. */
function grouped(text: string): string {
  return /\s[+-]\s/.test(text) ? `(${text})` : text;
}

/** A divisor bare when it is one letter, in brackets otherwise ("/a", "/(2a)", "/(a + b)"). */
function denominatorText(text: string): string {
  return /^[a-z]$/i.test(text) ? text : `(${text})`;
}
