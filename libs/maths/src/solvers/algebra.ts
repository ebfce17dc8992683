import { isOperatorNode, isParenthesisNode, type MathNode } from 'mathjs';
import { expandFactorisation, type Factorisation, factorisationText, factorUnivariate } from '../core/factor.js';
import { evaluateReal, freeVariables, magnitudeOfTerms, parseExpression, texOf } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import { sumTerms } from '../core/terms.js';
import type { EngineSolution, Intent, SolverResult, Step } from '../types.js';
import { decline, m } from './context.js';
import { simplifyPowers } from './exponent-rules.js';
import { sameNumber } from '../core/same-number.js';

/**
 * Expressions with unknowns: expand (multiply out, collect like terms), factor (one variable, over
 * the rationals), simplify rational expressions (factor, cancel, state the excluded values) and
 * products/quotients/powers of powers (exponent rules).
 */
export function solveExpression(node: MathNode, intent: Intent): SolverResult {
  const variables = freeVariables(node);
  if (variables.length === 0) return undefined;
  const powers = intent === 'expand' ? undefined : simplifyPowers(node, intent);
  if (powers !== undefined) return powers;
  const body = strip(node);
  if (isOperatorNode(body) && body.fn === 'divide') {
    const numerator = Polynomial.fromNode(body.args[0]!);
    const denominator = Polynomial.fromNode(body.args[1]!);
    if (numerator !== undefined && denominator !== undefined && denominator.constantValue() === undefined) {
      if (variables.length !== 1) return { solved: false, inScope: false, reason: 'rational expressions in several variables' };
      return simplifyRational(node, numerator, denominator, variables[0]!, intent);
    }
  }
  const poly = Polynomial.fromNode(node);
  if (poly === undefined) return undefined;
  if (intent === 'factor') {
    if (variables.length !== 1) return { solved: false, inScope: false, reason: 'factoring in several variables' };
    return factorPolynomial(node, poly, variables[0]!, intent);
  }
  if (intent === 'expand' || intent === 'simplify' || intent === 'evaluate') return expandPolynomial(node, poly, intent);
  return undefined;
}

function expandPolynomial(node: MathNode, poly: Polynomial, intent: Intent): EngineSolution {
  const steps: Step[] = [{ title: 'Write the expression', detail: m(texOf(node)) }];
  const terms = sumTerms(strip(node));
  if (terms.length > 1) {
    for (const term of terms) {
      const expanded = Polynomial.fromNode(term)!;
      if (texOf(term) !== expanded.toTex()) steps.push({ title: `Expand ${term.toString({ implicit: 'hide' })}`, detail: m(`${texOf(term)} = ${expanded.toTex()}`) });
    }
  } else if (isOperatorNode(strip(node)) && (strip(node) as { fn?: string }).fn === 'pow') {
    steps.push({ title: 'Write the power as a product', detail: 'Multiply the bracket by itself, one factor at a time.' });
  } else {
    steps.push({ title: 'Multiply every term of one bracket by every term of the other', detail: m(`${texOf(node)} = ${poly.toTex()}`) });
  }
  steps.push({ title: 'Collect like terms', detail: m(poly.toTex()) });
  checkSamePolynomial(node, poly);
  return {
    solved: true,
    category: 'polynomial',
    intent,
    problem: texOf(node),
    steps,
    finalAnswer: poly.toDisplay(),
    answer: { kind: 'expression', expression: poly.toString(), variables: poly.variables(), upToConstant: false },
    verification: 'the expansion equals the original at sample points',
  };
}

function factorPolynomial(node: MathNode, poly: Polynomial, x: string, intent: Intent): SolverResult {
  const factorisation = factorUnivariate(poly, x);
  if (factorisation === undefined) return decline('polynomial', 'the polynomial has degree ≥ 4 and no rational roots to start from');
  if (!expandFactorisation(factorisation).equals(poly)) throw new Error('factorisation does not multiply back to the polynomial');
  const steps: Step[] = [{ title: 'Write the polynomial', detail: m(poly.toTex()) }, ...factorisation.moves];
  const text = factorisationText(factorisation, 'display');
  steps.push({ title: 'Write the factored form', detail: m(factorisationText(factorisation, 'tex')) });
  steps.push({ title: 'Check by expanding', detail: `Multiplying the factors back out gives ${m(poly.toTex())}.` });
  return {
    solved: true,
    category: 'polynomial',
    intent,
    problem: texOf(node),
    steps,
    finalAnswer: text,
    answer: { kind: 'expression', expression: factorisationText(factorisation, 'mathjs'), variables: [x], upToConstant: false },
    verification: 'the factors multiplied back out equal the polynomial (exact)',
  };
}

function simplifyRational(node: MathNode, numerator: Polynomial, denominator: Polynomial, x: string, intent: Intent): SolverResult {
  const top = factorUnivariate(numerator, x);
  const bottom = factorUnivariate(denominator, x);
  if (top === undefined || bottom === undefined || numerator.isZero) return decline('rational_expression', 'the numerator or denominator does not factor over the rationals');
  const remainingTop = [...top.factors];
  const remainingBottom = [...bottom.factors];
  const cancelled: string[] = [];
  for (let i = 0; i < remainingTop.length; i++) {
    const t = remainingTop[i]!;
    const j = remainingBottom.findIndex((b) => b.poly.equals(t.poly));
    if (j < 0) continue;
    const b = remainingBottom[j]!;
    const common = Math.min(t.power, b.power);
    cancelled.push(factorisationText({ constant: Rational.ONE, factors: [{ poly: t.poly, power: common }], moves: [] }, 'tex'));
    remainingTop[i] = { poly: t.poly, power: t.power - common };
    remainingBottom[j] = { poly: b.poly, power: b.power - common };
  }
  const constant = top.constant.div(bottom.constant);
  const resultTop: Factorisation = { constant, factors: remainingTop.filter((f) => f.power > 0), moves: [] };
  const resultBottom: Factorisation = { constant: Rational.ONE, factors: remainingBottom.filter((f) => f.power > 0), moves: [] };
  // Excluded values: the rational roots of the original denominator.
  const excluded = bottom.factors
    .filter((f) => f.poly.degree() === 1 && f.poly.variables().length === 1)
    .map((f) => {
      const [c0, c1] = f.poly.coefficients(x)!;
      return c0!.neg().div(c1!);
    });
  const topTex = factorisationText(resultTop, 'tex');
  const bottomTex = factorisationText(resultBottom, 'tex');
  const resultTex = resultBottom.factors.length === 0 ? topTex : `\\frac{${topTex}}{${bottomTex}}`;
  const topExpr = factorisationText(resultTop, 'mathjs');
  const resultExpr = resultBottom.factors.length === 0 ? topExpr : `(${topExpr}) / (${factorisationText(resultBottom, 'mathjs')})`;
  const resultText = resultBottom.factors.length === 0 ? factorisationText(resultTop, 'display').replace(/^\(([^()]*)\)$/, '$1') : `${wrap(factorisationText(resultTop, 'display'))}/${wrap(factorisationText(resultBottom, 'display'))}`;
  const steps: Step[] = [
    { title: 'Write the expression', detail: m(texOf(node)) },
    { title: 'Factor the numerator', detail: m(factorisationText(top, 'tex')) },
    { title: 'Factor the denominator', detail: m(factorisationText(bottom, 'tex')) },
    cancelled.length > 0
      ? { title: 'Cancel the common factors', detail: `Cancel ${cancelled.map((c) => m(c)).join(', ')}: ${m(resultTex)}` }
      : { title: 'No common factor', detail: `The expression is already in lowest terms: ${m(resultTex)}` },
  ];
  if (excluded.length > 0) steps.push({ title: 'State the excluded values', detail: `The original expression is undefined at ${excluded.map((r) => m(`${x} = ${r.toTex()}`)).join(', ')}.` });
  checkSameFunction(node, resultExpr, x);
  return {
    solved: true,
    category: 'rational_expression',
    intent,
    problem: texOf(node),
    steps,
    finalAnswer: `${resultText}${excluded.length > 0 ? ` (${x} ≠ ${excluded.map((r) => r.toString()).join(', ')})` : ''}`,
    answer: { kind: 'expression', expression: resultExpr, variables: [x], upToConstant: false },
    verification: 'the simplified form equals the original at sample points away from the excluded values',
  };
}

function wrap(text: string): string {
  return /^[\w^]+$/.test(text) || /^\(.*\)$/.test(text) && !text.includes(')(') ? text : `(${text})`;
}

function strip(node: MathNode): MathNode {
  return isParenthesisNode(node) ? strip(node.content) : node;
}

const SAMPLES = [-2.7, -1.3, 0.4, 1.9, 3.1];

function checkSamePolynomial(node: MathNode, poly: Polynomial): void {
  const variables = poly.variables();
  for (const [i, s] of SAMPLES.entries()) {
    const scope = Object.fromEntries(variables.map((v, j) => [v, s + j * 0.37 + i * 0.01]));
    const original = evaluateReal(node, scope);
    const mine = evaluateReal(nodeOf(poly), scope);
    if (original === undefined || mine === undefined || !sameNumber(original, mine, { relative: 1e-7, scale: magnitudeOfTerms(node, scope) })) throw new Error('expanded polynomial disagrees with the original');
  }
}

function nodeOf(poly: Polynomial): MathNode {
  return parseOrThrow(poly.toString());
}

function parseOrThrow(text: string): MathNode {
  const node = parseExpression(text);
  if (node === undefined) throw new Error(`engine produced an unparseable expression: ${text}`);
  return node;
}

/** Numeric equality of two expressions in x at sample points where both are defined. */
export function checkSameFunction(node: MathNode, expression: string, x: string): void {
  const other = parseOrThrow(expression);
  let compared = 0;
  for (const s of SAMPLES) {
    const a = evaluateReal(node, { [x]: s });
    const b = evaluateReal(other, { [x]: s });
    if (a === undefined || b === undefined) continue;
    if (!sameNumber(a, b, { relative: 1e-7, scale: magnitudeOfTerms(node, { [x]: s }) })) throw new Error('simplified expression disagrees with the original');
    compared++;
  }
  if (compared < 3) throw new Error('too few sample points to check the simplification');
}
