import { isConstantNode, isFunctionNode, isOperatorNode, isParenthesisNode, type MathNode } from 'mathjs';
import { heldRational } from '../core/exact-range.js';
import { evaluateReal, magnitudeOfTerms, mj, texOf } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import { formatDecimal, Rational } from '../core/rational.js';
import type { EngineSolution, Intent, SolverResult, Step } from '../types.js';
import { decline, m } from './context.js';
import { exactWithDecimal } from './format.js';
import { sameNumber } from '../core/same-number.js';

/**
 * An expression of numbers reduced one operation at a time, innermost and left-most first, exactly
 * (fractions) where the operations allow and in floating point otherwise (roots, logarithms, π),
 * which the answer then says with ≈. Checked by evaluating the whole expression independently.
 */
export function solveArithmetic(node: MathNode, intent: Intent): SolverResult {
  const steps: Step[] = [{ title: 'Write the expression', detail: m(texOf(node)) }];
  let current = node;
  let approximate = false;
  for (let guard = 0; guard < 60 && !isValue(current); guard++) {
    const target = firstReducible(current);
    if (target === undefined) break;
    // Once a step is a double's (a root, π), the steps after it are too: its decimal read as an exact
    // fraction ("1.4142135623730951 · 3 = 42426406871192853/10^16") is precision the value never had.
    const exact = approximate ? undefined : Polynomial.fromNode(target)?.constantValue();
    let replacement: MathNode;
    let shown: string;
    if (exact !== undefined) {
      replacement = constantNode(exact);
      shown = exact.toTex();
    } else {
      const value = evaluateReal(target);
      if (value === undefined) return decline('arithmetic', `${textOf(target)} has no finite real value`);
      const asRational = Number.isSafeInteger(value) ? Rational.of(value) : undefined;
      approximate ||= asRational === undefined;
      replacement = asRational === undefined ? new mj.ConstantNode(value) : constantNode(asRational);
      shown = asRational === undefined ? `\\approx ${formatDecimal(value)}` : asRational.toTex();
    }
    const before = current;
    current = current.transform((n) => (n === target ? replacement : n)).transform((n) => (isParenthesisNode(n) && isConstantish(n.content) ? n.content : n));
    // A whole number past 2^53 is carried to the next step as a double, which does not hold it ("2^53 + 1"
    // was answered 9007199254740992): refused, unless this step is the last (then it is answered, ≈ where
    // the value is a double's).
    const unheld = exact !== undefined ? !heldRational(exact) : Number.isInteger(replacementValue(replacement)) && !Number.isSafeInteger(replacementValue(replacement));
    if (unheld && !isValue(current)) return { solved: false, inScope: true, category: 'arithmetic', reason: `${textOf(target)} has more digits than the engine carries exactly from one step to the next` };
    if (unheld && exact === undefined) approximate = true;
    steps.push({ title: `Compute ${textOf(target)}`, detail: `${m(`${texOf(target)} ${shown.startsWith('\\approx') ? '' : '= '}${shown}`)}${before === current ? '' : `, so the expression becomes ${m(texOf(current))}`}` });
  }
  if (approximate && intent === 'simplify') return { solved: false, inScope: false, reason: 'simplifying surds and other irrational forms is outside the engine\'s scope' };
  const exactTotal = Polynomial.fromNode(node)?.constantValue();
  const independent = evaluateReal(node);
  if (independent === undefined) return decline('arithmetic', 'the expression has no finite real value');
  const reduced = Polynomial.fromNode(current)?.constantValue() ?? evaluateReal(current);
  if (reduced === undefined) return decline('arithmetic', 'the expression could not be reduced');
  const reducedNumber = typeof reduced === 'number' ? reduced : reduced.toNumber();
  if (!sameNumber(reducedNumber, independent, { scale: magnitudeOfTerms(node) })) throw new Error('arithmetic reduction disagrees with direct evaluation');
  const finalAnswer = exactTotal !== undefined ? exactWithDecimal(exactTotal) : approximate ? `≈ ${formatDecimal(independent)}` : formatDecimal(independent);
  const solved: EngineSolution = {
    solved: true,
    category: 'arithmetic',
    intent,
    problem: texOf(node),
    steps,
    finalAnswer,
    answer: { kind: 'number', value: independent, ...(exactTotal === undefined ? {} : { exact: exactTotal.toString() }) },
    verification: 'the step-by-step result matches a direct evaluation of the whole expression',
  };
  return solved;
}

function replacementValue(node: MathNode): number {
  return isConstantNode(node) ? Number(node.value) : Number.NaN;
}

function textOf(node: MathNode): string {
  return node.toString({ implicit: 'hide' });
}

function constantNode(value: Rational): MathNode {
  const magnitude = value.abs();
  const node: MathNode = magnitude.isInteger
    ? new mj.ConstantNode(Number(magnitude.num))
    : new mj.OperatorNode('/', 'divide', [new mj.ConstantNode(Number(magnitude.num)), new mj.ConstantNode(Number(magnitude.den))]);
  const signed = value.sign < 0 ? new mj.OperatorNode('-', 'unaryMinus', [node]) : node;
  return magnitude.isInteger && value.sign >= 0 ? signed : new mj.ParenthesisNode(signed);
}

function isConstantish(node: MathNode): boolean {
  return isConstantNode(node) || (isOperatorNode(node) && node.fn === 'unaryMinus' && isConstantNode(node.args[0]!));
}

/** A reduced value: a constant, a negated constant, or a fraction of two constants (parenthesised). */
function isValue(node: MathNode): boolean {
  if (isParenthesisNode(node)) return isValue(node.content);
  if (isConstantish(node)) return true;
  return isOperatorNode(node) && node.fn === 'divide' && node.args.every((a) => isConstantish(a)) && Number.isInteger((node.args[0] as { value?: unknown }).value);
}

/** The left-most innermost operation whose operands are all values. */
function firstReducible(root: MathNode): MathNode | undefined {
  let found: MathNode | undefined;
  const visit = (node: MathNode, insideValue: boolean): void => {
    if (found !== undefined) return;
    const valueHere = isParenthesisNode(node) && isValue(node);
    const children = isOperatorNode(node) || isFunctionNode(node) ? node.args : isParenthesisNode(node) ? [node.content] : [];
    for (const child of children) visit(child, insideValue || valueHere);
    if (found !== undefined || insideValue || valueHere) return;
    if (isOperatorNode(node) && node.fn === 'unaryMinus' && isConstantNode(node.args[0]!)) return;
    if ((isOperatorNode(node) || isFunctionNode(node)) && node.args.length > 0 && node.args.every((a) => isValue(a))) {
      if (!(isOperatorNode(node) && node.fn === 'divide' && isValue(node))) found = node;
    }
  };
  visit(root, false);
  return found;
}
