import { isConstantNode, isFunctionNode, isOperatorNode, isParenthesisNode, isSymbolNode, type MathNode } from 'mathjs';
import { evaluateReal, freeVariables, magnitudeOfTerms, parseExpression, texOf } from '../core/mathjs.js';
import { derivativeText } from '../core/nerdamer.js';
import { Polynomial } from '../core/polynomial.js';
import type { ProblemContext } from './context.js';
import { decline, m } from './context.js';
import { calculusTarget } from './calculus-target.js';
import { sumTerms } from '../core/terms.js';
import type { SolverResult, Step } from '../types.js';
import { displayText } from './format.js';
import { sameNumber } from '../core/same-number.js';

const FINITE_DIFFERENCE_TOLERANCE = 1e-4;

/**
 * Derivatives with the rule named for each term (sum, constant multiple, power, product, quotient,
 * chain, exponential, logarithm, trigonometric); the result (mathjs' symbolic derivative,
 * simplified) is checked against a central finite difference of the function at sample points.
 */
export function solveDerivative(ctx: ProblemContext): SolverResult {
  const target = calculusTarget(ctx);
  if (target === undefined) return decline('derivative', 'no function of one variable found to differentiate');
  const { node, variable: x, name } = target;
  const lhs = name === 'y' ? `dy/d${x}` : `${name}'(${x})`;
  const derivative = differentiate(node, x);
  if (derivative === undefined) return decline('derivative', 'the function could not be differentiated');
  checkDerivative(node, derivative, x);
  const steps: Step[] = [{ title: 'Write the function', detail: m(`${name === 'y' ? 'y' : `${name}(${x})`} = ${texOf(node)}`) }];
  const terms = sumTerms(strip(node));
  if (terms.length > 1) steps.push({ title: 'Sum rule', detail: 'Differentiate term by term.' });
  for (const term of terms) {
    const d = differentiate(term, x);
    if (d === undefined) return decline('derivative', 'a term could not be differentiated');
    steps.push({ title: `Differentiate ${displayText(term)} (${ruleOf(term, x)})`, detail: m(`\\frac{d}{d${x}}\\left[${texOf(term)}\\right] = ${texOf(d)}`) });
  }
  steps.push({ title: 'Combine', detail: m(`${name === 'y' ? `\\frac{dy}{d${x}}` : `${name}'(${x})`} = ${texOf(derivative)}`) });
  const expression = derivative.toString();
  return {
    solved: true,
    category: 'derivative',
    intent: 'differentiate',
    problem: texOf(node),
    steps,
    finalAnswer: `${lhs} = ${Polynomial.fromNode(derivative)?.toDisplay() ?? displayText(derivative)}`,
    answer: { kind: 'expression', expression, variables: [x], upToConstant: false },
    verification: 'compared with a central finite difference at sample points',
  };
}

/**
 * nerdamer's derivative (fast, and its output parses back into mathjs); a polynomial result is
 * printed in standard order. The caller checks it numerically.
 */
function differentiate(node: MathNode, x: string): MathNode | undefined {
  const text = derivativeText(node.toString({ implicit: 'show' }), x);
  const parsed = text === undefined ? undefined : parseExpression(text);
  if (parsed === undefined) return undefined;
  const poly = Polynomial.fromNode(parsed);
  return poly === undefined ? parsed : parseExpression(poly.toString());
}

export function checkDerivative(f: MathNode, derivative: MathNode, x: string): void {
  let compared = 0;
  for (const s of [0.37, 0.81, 1.43, 2.2, -0.6, -1.7]) {
    const h = 1e-5;
    const up = evaluateReal(f, { [x]: s + h });
    const down = evaluateReal(f, { [x]: s - h });
    const d = evaluateReal(derivative, { [x]: s });
    if (up === undefined || down === undefined || d === undefined) continue;
    const numeric = (up - down) / (2 * h);
    // A central difference is good to ~10^-10 of the derivative's terms, plus the rounding of f's terms over 2h.
    const differenceNoise = ((magnitudeOfTerms(f, { [x]: s }) ?? 0) * 2 ** -52) / h;
    if (!sameNumber(numeric, d, { relative: FINITE_DIFFERENCE_TOLERANCE, scale: Math.max(magnitudeOfTerms(derivative, { [x]: s }) ?? 0, differenceNoise / FINITE_DIFFERENCE_TOLERANCE) })) throw new Error('derivative failed the finite-difference check');
    compared++;
  }
  if (compared < 3) throw new Error('too few points to check the derivative');
}

function ruleOf(node: MathNode, x: string): string {
  const n = strip(node);
  if (!freeVariables(n).includes(x)) return 'constant rule';
  if (isSymbolNode(n)) return 'power rule';
  if (isOperatorNode(n)) {
    const [a, b] = n.args;
    switch (n.fn) {
      case 'unaryMinus':
        return `constant multiple, ${ruleOf(a!, x)}`;
      case 'multiply': {
        const aVar = freeVariables(a!).includes(x);
        const bVar = freeVariables(b!).includes(x);
        if (aVar && bVar) return 'product rule';
        return `constant multiple, ${ruleOf(aVar ? a! : b!, x)}`;
      }
      case 'divide':
        return freeVariables(b!).includes(x) ? 'quotient rule' : `constant multiple, ${ruleOf(a!, x)}`;
      case 'pow': {
        if (freeVariables(b!).includes(x)) return 'exponential rule with the chain rule';
        return isSymbolNode(strip(a!)) ? 'power rule' : 'power rule with the chain rule';
      }
      default:
        return 'sum rule';
    }
  }
  if (isFunctionNode(n)) {
    const inner = n.args[0];
    const chain = inner !== undefined && !isSymbolNode(strip(inner)) ? ' with the chain rule' : '';
    const name = n.fn.name;
    const base = name === 'exp' ? 'exponential rule' : name.startsWith('log') ? 'logarithm rule' : name === 'sqrt' ? 'power rule (square root)' : ['sin', 'cos', 'tan'].includes(name) ? `derivative of ${name}` : `derivative of ${name}`;
    return `${base}${chain}`;
  }
  return isConstantNode(n) ? 'constant rule' : 'differentiation rules';
}

function strip(node: MathNode): MathNode {
  return isParenthesisNode(node) ? strip(node.content) : node;
}
