import type { MathNode } from 'mathjs';
import { evaluateReal, mj, parseExpression, texOf } from '../core/mathjs.js';
import { spend } from '../core/budget.js';
import { symbolicCost } from '../core/symbolic-cost.js';
import { antiderivative } from '../core/nerdamer.js';
import { Polynomial } from '../core/polynomial.js';
import { formatDecimal, Rational } from '../core/rational.js';
import type { SolverResult, Step } from '../types.js';
import { calculusTarget } from './calculus-target.js';
import { type ProblemContext, decline, m } from './context.js';
import { checkDerivative } from './derivative.js';
import { sumTerms } from '../core/terms.js';
import { displayText, exactWithDecimal } from './format.js';
import { mathStatements } from '../text/extract.js';

// Ingestion may write "from -1" as "from-1".
const BOUNDS = /\bfrom\s*(-?\d+(?:\.\d+)?)\s*to\s*(-?\d+(?:\.\d+)?)/;

/**
 * Basic integrals term by term (linearity, then the power rule, exponentials, 1/x, sine and cosine,
 * or nerdamer's antiderivative for a term outside the table); every antiderivative is checked by
 * differentiating it back. Definite integrals "from a to b" apply F(b) - F(a), exactly for polynomials.
 */
export function solveIntegral(ctx: ProblemContext): SolverResult {
  const bounds = BOUNDS.exec(ctx.lower);
  const statements = mathStatements(bounds === null ? ctx.normalised : ctx.normalised.replace(/\bfrom\s*-?\d+(?:\.\d+)?\s*to\s*-?\d+(?:\.\d+)?/i, ' '));
  const target = calculusTarget(ctx, statements);
  if (target === undefined) return decline('integral', 'no function of one variable found to integrate');
  const { node, variable: x } = target;
  const steps: Step[] = [{ title: 'Write the integral', detail: m(`\\int ${texOf(node)} \\, d${x}`) }];
  const terms = sumTerms(stripParens(node));
  if (terms.length > 1) steps.push({ title: 'Linearity', detail: 'Integrate term by term.' });
  const pieces: MathNode[] = [];
  for (const term of terms) {
    spend(symbolicCost(term), `the antiderivative of ${term.toString({ implicit: 'hide' })}`);
    const text = antiderivative(term.toString({ implicit: 'show' }), x);
    const piece = text === undefined ? undefined : parseExpression(text);
    if (piece === undefined) return decline('integral', `no elementary antiderivative found for ${term.toString({ implicit: 'hide' })}`);
    try {
      checkDerivative(piece, term, x);
    } catch {
      return decline('integral', 'an antiderivative failed the differentiation check');
    }
    pieces.push(piece);
    steps.push({ title: `Integrate ${displayText(term)} (${ruleOf(term, x)})`, detail: m(`\\int ${texOf(term)} \\, d${x} = ${texOf(piece)}`) });
  }
  // A polynomial antiderivative is printed in standard order; anything else as the sum of its pieces.
  const sum = pieces.reduce((acc: MathNode, p) => new mj.OperatorNode('+', 'add', [acc, p]));
  const sumPolynomial = Polynomial.fromNode(sum);
  const total = sumPolynomial === undefined ? sum : mj.parse(sumPolynomial.toString());
  checkDerivative(total, node, x);
  steps.push({ title: 'Check by differentiating', detail: `${m(`\\frac{d}{d${x}}\\left[${texOf(total)}\\right]`)} gives back the integrand.` });
  if (bounds === null) {
    steps.push({ title: 'Add the constant of integration', detail: m(`${texOf(total)} + C`) });
    return {
      solved: true,
      category: 'integral',
      intent: 'integrate',
      problem: texOf(node),
      steps,
      finalAnswer: `${sumPolynomial?.toDisplay() ?? displayText(total)} + C`,
      answer: { kind: 'expression', expression: total.toString(), variables: [x], upToConstant: true },
      verification: 'differentiated back to the integrand at sample points',
    };
  }
  const [a, b] = [Number(bounds[1]), Number(bounds[2])];
  const poly = Polynomial.fromNode(total);
  const exact = poly?.coefficients(x) === undefined ? undefined : poly.evaluate({ [x]: ratio(b) }).sub(poly.evaluate({ [x]: ratio(a) }));
  const fb = evaluateReal(total, { [x]: b });
  const fa = evaluateReal(total, { [x]: a });
  if (fb === undefined || fa === undefined) return decline('integral', 'the antiderivative is undefined at a bound');
  const value = fb - fa;
  steps.push({ title: 'Evaluate between the bounds', detail: m(`F(${b}) - F(${a}) = ${exact === undefined ? `${formatDecimal(fb)} - ${formatDecimal(fa)}` : `${poly!.evaluate({ [x]: ratio(b) }).toTex()} - ${poly!.evaluate({ [x]: ratio(a) }).toTex()}`} = ${exact?.toTex() ?? `\\approx ${formatDecimal(value)}`}`) });
  return {
    solved: true,
    category: 'integral',
    intent: 'integrate',
    problem: `${texOf(node)} from ${a} to ${b}`,
    steps,
    finalAnswer: exact === undefined ? `≈ ${formatDecimal(value)}` : exactWithDecimal(exact),
    answer: { kind: 'number', value },
    verification: 'antiderivative differentiated back to the integrand; bounds applied',
  };
}

function ratio(n: number): Rational {
  return Rational.fromNumber(n)!;
}

function stripParens(node: MathNode): MathNode {
  return node.type === 'ParenthesisNode' ? stripParens((node as unknown as { content: MathNode }).content) : node;
}

function ruleOf(term: MathNode, x: string): string {
  const text = term.toString();
  if (Polynomial.fromNode(term) !== undefined) return Polynomial.fromNode(term)!.degree() === 0 ? 'constant rule' : 'power rule';
  if (/exp\(|e \^/.test(text)) return 'exponential rule';
  if (/sin\(|cos\(/.test(text)) return 'trigonometric rule';
  if (new RegExp(`^\\d*\\s*\\*?\\s*1?\\s*/\\s*${x}$`).test(text.replace(/\s+/g, ' ').trim())) return 'the rule ∫1/x dx = ln|x|';
  return 'standard antiderivative';
}
