import { isConstantNode, isFunctionNode, isOperatorNode, isParenthesisNode, type MathNode } from 'mathjs';
import { evaluateReal, freeVariables, magnitudeOfTerms, texOf } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import type { EngineSolution, Intent, SolverResult, Step } from '../types.js';
import { decline, m } from './context.js';
import { exactWithDecimal } from './format.js';
import { sameNumber } from '../core/same-number.js';

/**
 * Exponent and logarithm rules: b^(linear) = c where c is a power of b (write c as b^k, equate
 * exponents), log_b(linear) = k (rewrite as linear = b^k, keep the domain), and exact values of
 * log_b(c). Checked by substituting the solution into the original equation.
 */
export function solveExponentialOrLogEquation(lhs: MathNode, rhs: MathNode, variable: string, intent: Intent): SolverResult {
  const [side, other] = freeVariables(lhs).length > 0 ? [lhs, rhs] : [rhs, lhs];
  const target = Polynomial.fromNode(other)?.constantValue();
  if (target === undefined || freeVariables(other).length > 0) return { solved: false, inScope: false, reason: 'an equation the engine has no method for' };
  const inner = strip(side);
  const problem = `${texOf(lhs)} = ${texOf(rhs)}`;
  const steps: Step[] = [{ title: 'Write the equation', detail: m(problem) }];
  let exponentPoly: Polynomial | undefined;
  let value: Rational;
  if (isOperatorNode(inner) && inner.fn === 'pow') {
    const base = Polynomial.fromNode(inner.args[0]!)?.constantValue();
    exponentPoly = Polynomial.fromNode(inner.args[1]!);
    if (base === undefined || exponentPoly === undefined || base.sign <= 0 || base.equals(Rational.ONE)) return decline('exponent_log', 'the base is not a positive number other than 1');
    const k = integerLog(target, base);
    if (k === undefined) return decline('exponent_log', `${target.toString()} is not an integer power of ${base.toString()}`);
    steps.push({ title: `Write ${target.toString()} as a power of ${base.toString()}`, detail: m(`${target.toTex()} = ${base.toTex()}^{${k}}`) });
    steps.push({ title: 'Equal powers of the same base have equal exponents', detail: m(`${exponentPoly.toTex()} = ${k}`) });
    value = Rational.of(k);
  } else {
    const log = logParts(inner);
    if (log === undefined) return { solved: false, inScope: false, reason: 'an equation the engine has no method for' };
    exponentPoly = Polynomial.fromNode(log.argument);
    if (exponentPoly === undefined || !target.isInteger) return decline('exponent_log', 'the logarithm equation is not of the form log_b(linear) = integer');
    value = log.base.pow(Number(target.num));
    steps.push({ title: 'Rewrite the logarithm as a power', detail: m(`\\log_{${log.base.toTex()}}\\left(${exponentPoly.toTex()}\\right) = ${target.toTex()} \\iff ${exponentPoly.toTex()} = ${log.base.toTex()}^{${target.toTex()}} = ${value.toTex()}`) });
  }
  const [c0 = Rational.ZERO, c1 = Rational.ZERO, ...higher] = exponentPoly.coefficients(variable) ?? [];
  if (c1.isZero || higher.length > 0) return decline('exponent_log', 'the exponent or argument is not linear in the unknown');
  const solution = value.sub(c0).div(c1);
  steps.push({ title: `Solve for ${variable}`, detail: m(`${variable} = ${solution.toTex()}`) });
  const l = evaluateReal(lhs, { [variable]: solution.toNumber() });
  const r = evaluateReal(rhs, { [variable]: solution.toNumber() });
  if (l === undefined || r === undefined || !sameNumber(l, r, { scale: Math.max(magnitudeOfTerms(lhs, { [variable]: solution.toNumber() }) ?? 0, magnitudeOfTerms(rhs, { [variable]: solution.toNumber() }) ?? 0) })) return decline('exponent_log', 'the solution failed the substitution check (outside the domain)');
  steps.push({ title: 'Check by substitution', detail: `With ${m(`${variable} = ${solution.toTex()}`)} both sides equal ${m(String(Number(l.toPrecision(12))))}.` });
  const solved: EngineSolution = {
    solved: true,
    category: 'exponent_log',
    intent,
    problem,
    steps,
    finalAnswer: `${variable} = ${exactWithDecimal(solution)}`,
    answer: { kind: 'roots', variable, roots: [{ re: solution.toNumber(), im: 0, exact: solution.toString() }] },
    verification: 'substituted into the original equation',
  };
  return solved;
}

/** log_b(c) for rational c that is an integer power of b: the exact integer. */
export function evaluateLogarithm(node: MathNode, intent: Intent): SolverResult {
  const log = logParts(strip(node));
  if (log === undefined) return undefined;
  const argument = Polynomial.fromNode(log.argument)?.constantValue();
  if (argument === undefined) return undefined;
  const k = integerLog(argument, log.base);
  if (k === undefined) return decline('exponent_log', `${argument.toString()} is not an integer power of ${log.base.toString()}`);
  const check = evaluateReal(node);
  if (check === undefined || !sameNumber(check, k)) throw new Error('logarithm value failed its check');
  const base = log.base.toTex();
  const solved: EngineSolution = {
    solved: true,
    category: 'exponent_log',
    intent,
    problem: texOf(node),
    steps: [
      { title: 'Write the argument as a power of the base', detail: m(`${argument.toTex()} = ${base}^{${k}}`) },
      { title: 'Use the rule log_b(b^k) = k', detail: m(`\\log_{${base}}\\left(${base}^{${k}}\\right) = ${k}`) },
    ].concat(log.implicitBase ? [{ title: 'Note', detail: `"log" without a base is read as the common logarithm (base 10).` }] : []),
    finalAnswer: String(k),
    answer: { kind: 'number', value: k },
    verification: 'compared with a floating-point evaluation of the logarithm',
  };
  return solved;
}

function strip(node: MathNode): MathNode {
  return isParenthesisNode(node) ? strip(node.content) : node;
}

function logParts(node: MathNode): { argument: MathNode; base: Rational; implicitBase: boolean } | undefined {
  if (!isFunctionNode(node)) return undefined;
  const name = node.fn.name;
  const [argument, baseNode] = node.args;
  if (argument === undefined) return undefined;
  if (name === 'log10' && baseNode === undefined) return { argument, base: Rational.of(10), implicitBase: true };
  if (name === 'log2' && baseNode === undefined) return { argument, base: Rational.of(2), implicitBase: false };
  if (name === 'log' && baseNode !== undefined && isConstantNode(baseNode)) {
    const base = Polynomial.fromNode(baseNode)?.constantValue();
    if (base !== undefined && base.sign > 0 && !base.equals(Rational.ONE)) return { argument, base, implicitBase: false };
  }
  return undefined;
}

/** k with base^k = value, for |k| ≤ 64, else undefined. */
function integerLog(value: Rational, base: Rational): number | undefined {
  if (value.sign <= 0) return undefined;
  for (let k = 0; k <= 64; k++) {
    if (base.pow(k).equals(value)) return k;
    if (base.pow(-k).equals(value)) return -k;
  }
  return undefined;
}
