import { isConstantNode, isOperatorNode, isParenthesisNode, isSymbolNode, type MathNode } from 'mathjs';
import { texOf } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import type { EngineSolution, Intent, SolverResult, Step } from '../types.js';
import { m } from './context.js';
import { checkSameFunction } from './algebra.js';

/** c · Π vᵉ with rational exponents. */
interface Monomial {
  readonly coef: Rational;
  readonly exponents: ReadonlyMap<string, Rational>;
}

/**
 * Products, quotients and powers of powers (x³·x⁵, (2x²)³, x⁷/x³, x^-2) simplified to one term with
 * the rule named at each step (product, quotient, power of a power, power of a product, negative
 * exponent); checked numerically against the original.
 */
export function simplifyPowers(node: MathNode, intent: Intent): SolverResult {
  const rules: Step[] = [];
  const monomial = toMonomial(node, rules);
  if (monomial === undefined || rules.length === 0) return undefined;
  const { expression, tex, text } = render(monomial);
  const variables = [...monomial.exponents.keys()];
  if (variables.length === 1) checkSameFunction(node, expression, variables[0]!);
  else return undefined;
  const steps: Step[] = [{ title: 'Write the expression', detail: m(texOf(node)) }, ...rules, { title: 'Result', detail: m(tex) }];
  const solved: EngineSolution = {
    solved: true,
    category: 'exponent_log',
    intent,
    problem: texOf(node),
    steps,
    finalAnswer: text,
    answer: { kind: 'expression', expression, variables, upToConstant: false },
    verification: 'the simplified form equals the original at sample points',
  };
  return solved;
}

function toMonomial(node: MathNode, rules: Step[]): Monomial | undefined {
  if (isParenthesisNode(node)) return toMonomial(node.content, rules);
  if (isConstantNode(node)) {
    const value = Polynomial.fromNode(node)?.constantValue();
    return value === undefined ? undefined : { coef: value, exponents: new Map() };
  }
  if (isSymbolNode(node)) return ['pi', 'e', 'i'].includes(node.name) ? undefined : { coef: Rational.ONE, exponents: new Map([[node.name, Rational.ONE]]) };
  if (!isOperatorNode(node)) return undefined;
  const [a, b] = node.args;
  switch (node.fn) {
    case 'unaryMinus': {
      const inner = a && toMonomial(a, rules);
      return inner && { coef: inner.coef.neg(), exponents: inner.exponents };
    }
    case 'multiply':
    case 'divide': {
      const left = a && toMonomial(a, rules);
      const right = b && toMonomial(b, rules);
      if (left === undefined || right === undefined) return undefined;
      if (node.fn === 'divide' && right.coef.isZero) return undefined;
      const sign = node.fn === 'multiply' ? Rational.ONE : Rational.of(-1);
      const exponents = new Map(left.exponents);
      const shared: string[] = [];
      for (const [v, e] of right.exponents) {
        if (exponents.has(v)) shared.push(v);
        exponents.set(v, (exponents.get(v) ?? Rational.ZERO).add(e.mul(sign)));
      }
      for (const v of shared) {
        const l = left.exponents.get(v)!;
        const r = right.exponents.get(v)!;
        rules.push(
          node.fn === 'multiply'
            ? { title: 'Product rule: add the exponents', detail: m(`${v}^{${l.toTex()}} \\cdot ${v}^{${r.toTex()}} = ${v}^{${l.toTex()} + ${r.toTex()}} = ${v}^{${l.add(r).toTex()}}`) }
            : { title: 'Quotient rule: subtract the exponents', detail: m(`\\frac{${v}^{${l.toTex()}}}{${v}^{${r.toTex()}}} = ${v}^{${l.toTex()} - ${r.toTex()}} = ${v}^{${l.sub(r).toTex()}}`) },
        );
      }
      const coef = node.fn === 'multiply' ? left.coef.mul(right.coef) : left.coef.div(right.coef);
      return { coef, exponents: new Map([...exponents].filter(([, e]) => !e.isZero)) };
    }
    case 'pow': {
      const base = a && toMonomial(a, rules);
      const power = b && Polynomial.fromNode(b)?.constantValue();
      if (base === undefined || power === undefined || !power.isInteger || power.abs().num > 20n) return undefined;
      if (base.coef.isZero && power.sign <= 0) return undefined;
      const n = Number(power.num);
      if (base.exponents.size > 0) {
        const [v, e] = [...base.exponents][0]!;
        rules.push(
          base.exponents.size === 1 && base.coef.equals(Rational.ONE)
            ? { title: 'Power of a power: multiply the exponents', detail: m(`\\left(${v}^{${e.toTex()}}\\right)^{${n}} = ${v}^{${e.toTex()} \\cdot ${n}} = ${v}^{${e.mul(power).toTex()}}`) }
            : { title: 'Power of a product: raise every factor to the power', detail: `Each factor's exponent is multiplied by ${m(String(n))} and the coefficient becomes ${m(base.coef.pow(n).toTex())}.` },
        );
      }
      return { coef: base.coef.pow(n), exponents: new Map([...base.exponents].map(([v, e]) => [v, e.mul(power)])) };
    }
    default:
      return undefined;
  }
}

function render(monomial: Monomial): { expression: string; tex: string; text: string } {
  const entries = [...monomial.exponents].sort(([a], [b]) => a.localeCompare(b));
  const positive = entries.filter(([, e]) => e.sign > 0);
  const negative = entries.filter(([, e]) => e.sign < 0);
  const power = (v: string, e: Rational, tex: boolean): string => (e.equals(Rational.ONE) ? v : tex ? `${v}^{${e.toTex()}}` : `${v}^${e.isInteger ? e.toString() : `(${e.toString()})`}`);
  const coef = monomial.coef;
  const numTex = positive.map(([v, e]) => power(v, e, true)).join(' ');
  const numText = positive.map(([v, e]) => power(v, e, false)).join('');
  const denTex = negative.map(([v, e]) => power(v, e.neg(), true)).join(' ');
  const denText = negative.map(([v, e]) => power(v, e.neg(), false)).join('');
  const coefText = coef.equals(Rational.ONE) && numText !== '' ? '' : coef.equals(Rational.of(-1)) && numText !== '' ? '-' : coef.isInteger ? coef.toString() : `(${coef.toString()})`;
  const coefTex = coef.equals(Rational.ONE) && numTex !== '' ? '' : coef.equals(Rational.of(-1)) && numTex !== '' ? '-' : coef.toTex();
  const top = `${coefText}${numText}` || '1';
  const topTex = `${coefTex}${numTex}` || '1';
  const expression = `${coef.toString().includes('/') ? `(${coef.toString()})` : coef.toString()}${entries.map(([v, e]) => ` * ${v}^(${e.toString()})`).join('')}`;
  return {
    expression,
    tex: negative.length === 0 ? topTex : `\\frac{${topTex}}{${denTex}}`,
    text: negative.length === 0 ? top : `${top}/${negative.length > 1 ? `(${denText})` : denText}`,
  };
}
