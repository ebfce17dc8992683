import { isFunctionNode, isOperatorNode, type MathNode } from 'mathjs';
import { evaluateReal, freeVariables, magnitudeOfTerms, texOf } from '../core/mathjs.js';
import { Rational } from '../core/rational.js';
import { SurdSum } from '../core/surd-sum.js';
import type { Intent, SolverResult, Step } from '../types.js';
import { decline, m } from './context.js';
import { sameNumber } from '../core/same-number.js';

const hasRoot = (node: MathNode): boolean =>
  node.filter((n) => (isFunctionNode(n) && n.fn.name === 'sqrt') || (isOperatorNode(n) && n.fn === 'divide' && n.filter((d) => isFunctionNode(d) && d.fn.name === 'sqrt').length > 0)).length > 0;

/**
 * Surds in simplest form: each √n written as k√m with m square-free (the largest square factor taken
 * out), like surds collected, a surd denominator made rational (by the conjugate for a + b√m). The
 * answer stays exact ("6√2"); when the expression is not one these rules keep exact the problem is
 * refused rather than answered in decimals. Checked by evaluating the original expression numerically.
 */
export function solveSurd(node: MathNode, intent: Intent): SolverResult {
  if (freeVariables(node).length > 0 || !hasRoot(node)) return undefined;
  const value = SurdSum.fromNode(node);
  if (value === undefined) return { solved: false, inScope: false, reason: 'the expression has no exact surd form the engine can write (only +, −, ×, ÷ and square roots of rationals)' };
  const steps: Step[] = [{ title: 'Write the expression', detail: m(texOf(node)) }];
  for (const root of node.filter((n) => isFunctionNode(n) && n.fn.name === 'sqrt')) {
    const radicand = SurdSum.fromNode((root as MathNode & { args: MathNode[] }).args[0]!)?.asRational();
    if (radicand === undefined || !radicand.isInteger) continue;
    const simplified = SurdSum.sqrt(radicand);
    const [[rest, outside]] = [...simplified.terms] as [[bigint, Rational]];
    if (outside === undefined || outside.equals(Rational.ONE)) {
      steps.push({ title: `Look for a square factor of ${radicand.toString()}`, detail: `${radicand.toString()} has no square factor above 1, so ${m(`\\sqrt{${radicand.toTex()}}`)} is already in simplest form.` });
      continue;
    }
    if (rest === 1n) {
      steps.push({ title: `${radicand.toString()} is a perfect square`, detail: m(`\\sqrt{${radicand.toTex()}} = ${outside.toTex()}`) });
      continue;
    }
    const square = outside.mul(outside);
    steps.push({
      title: `Take the largest square factor out of √${radicand.toString()}`,
      detail: m(`\\sqrt{${radicand.toTex()}} = \\sqrt{${square.toTex()} \\times ${rest}} = \\sqrt{${square.toTex()}}\\,\\sqrt{${rest}} = ${simplified.toTex()}`),
    });
  }
  if (node.filter((n) => isOperatorNode(n) && n.fn === 'divide' && hasRoot(n.args[1]!)).length > 0) {
    steps.push({ title: 'Rationalise the denominator', detail: 'Multiply the numerator and the denominator by the surd in the denominator (by its conjugate when it is a sum), so the denominator becomes a whole number.' });
  }
  steps.push({ title: 'Collect the terms', detail: m(`${texOf(node)} = ${value.toTex()}`) });
  const independent = evaluateReal(node);
  if (independent === undefined || !sameNumber(independent, value.toNumber(), { scale: magnitudeOfTerms(node) })) {
    return decline('surd', 'the simplified surd does not agree with the expression evaluated directly');
  }
  return {
    solved: true,
    category: 'surd',
    intent,
    problem: texOf(node),
    steps,
    finalAnswer: value.toString(),
    answer: { kind: 'number', value: independent },
    verification: `the simplified form ${value.toString()} and the original expression agree numerically (${independent})`,
  };
}
