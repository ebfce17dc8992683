import type { MathNode } from 'mathjs';
import { texOf } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import { Rational } from '../core/rational.js';
import { formatSurdPair, type SurdPair, sqrtRational, surdValues, texSurdPair } from '../core/surd.js';
import { formatDecimal } from '../core/rational.js';
import type { EngineSolution, Intent, Step } from '../types.js';
import { m } from './context.js';
import { exactWithDecimal } from './format.js';

/**
 * a·x² + b·x + c = 0 by the method a student would pick: factoring when the roots are rational,
 * completing the square when a = 1 and b is even, the quadratic formula otherwise (complex roots
 * stated as such). Checked exactly: rational roots by substitution, surd pairs by Vieta's formulas
 * (their sum is -b/a and their product c/a).
 */
export function solveQuadraticEquation(lhs: MathNode, rhs: MathNode, difference: Polynomial, variable: string, intent: Intent): EngineSolution {
  const [c, b, a] = difference.coefficients(variable)! as [Rational, Rational, Rational];
  const x = variable;
  const problem = `${texOf(lhs)} = ${texOf(rhs)}`;
  const standard = Polynomial.fromCoefficients(x, [c, b, a]);
  const steps: Step[] = [
    { title: 'Write the equation', detail: m(problem) },
    {
      title: 'Bring every term to one side (standard form)',
      detail: `${m(`${standard.toTex()} = 0`)}, so ${m(`a = ${a.toTex()}`)}, ${m(`b = ${b.toTex()}`)}, ${m(`c = ${c.toTex()}`)}.`,
    },
  ];
  const discriminant = b.mul(b).sub(Rational.of(4).mul(a).mul(c));
  steps.push({
    title: 'Compute the discriminant',
    detail: m(`\\Delta = b^2 - 4ac = ${paren(b)}^2 - 4 \\cdot ${paren(a)} \\cdot ${paren(c)} = ${discriminant.toTex()}`),
  });
  const vertex = b.neg().div(a.mul(Rational.of(2)));
  const root = sqrtRational(discriminant.abs());
  const spread = root.k.div(a.mul(Rational.of(2)).abs());

  if (discriminant.sign >= 0 && root.m === 1n) {
    const r1 = vertex.add(spread);
    const r2 = vertex.sub(spread);
    for (const r of [r1, r2]) {
      if (!standard.evaluate({ [x]: r }).isZero) throw new Error('quadratic root failed its substitution check');
    }
    if (r1.equals(r2)) {
      steps.push({ title: 'The discriminant is zero: a perfect square', detail: m(`${a.equals(Rational.ONE) ? '' : a.toTex()}${factorTex(x, r1)}^2 = 0`) });
      steps.push({ title: 'Solve', detail: `${m(`${x} = ${r1.toTex()}`)} (a double root). Check: substituting gives ${m('0 = 0')}.` });
      return done(`${x} = ${exactWithDecimal(r1)}`, [r1]);
    }
    const lead = a.div(leadOf(r1).mul(leadOf(r2)));
    steps.push({
      title: 'The discriminant is a perfect square, so factor',
      detail: m(`${lead.equals(Rational.ONE) ? '' : lead.equals(Rational.of(-1)) ? '-' : lead.toTex()}${factorTex(x, r1)}${factorTex(x, r2)} = 0`),
    });
    steps.push({ title: 'Set each factor to zero', detail: `${m(`${x} = ${r1.toTex()}`)} or ${m(`${x} = ${r2.toTex()}`)}` });
    steps.push({ title: 'Check by substitution', detail: `Both values make ${m(standard.toTex())} equal to ${m('0')}.` });
    const [lo, hi] = r1.compare(r2) < 0 ? [r1, r2] : [r2, r1];
    return done(`${x} = ${exactWithDecimal(lo)} or ${x} = ${exactWithDecimal(hi)}`, [lo, hi]);
  }

  const pair: SurdPair = { p: vertex, s: spread, m: root.m, imaginary: discriminant.sign < 0 };
  checkVieta(pair, a, b, c);
  const half = b.div(Rational.of(2));
  if (a.equals(Rational.ONE) && half.isInteger && discriminant.sign > 0) {
    const rhsSquare = half.mul(half).sub(c);
    steps.push({
      title: 'Complete the square',
      detail: `Add ${m(`\\left(\\frac{b}{2}\\right)^2 = ${half.mul(half).toTex()}`)} to both sides: ${m(`${factorTex(x, half.neg())}^2 = ${rhsSquare.toTex()}`)}`,
    });
    steps.push({ title: 'Take square roots', detail: m(`${x} = ${texSurdPair(pair)}`) });
  } else {
    steps.push({
      title: 'Use the quadratic formula',
      detail: m(`${x} = \\frac{-b \\pm \\sqrt{\\Delta}}{2a} = \\frac{${b.neg().toTex()} \\pm \\sqrt{${discriminant.toTex()}}}{${a.mul(Rational.of(2)).toTex()}} = ${texSurdPair(pair)}`),
    });
    if (pair.imaginary) steps.push({ title: 'The discriminant is negative', detail: 'There are no real roots; the two roots are complex conjugates.' });
  }
  steps.push({ title: 'Check with the sum and product of the roots', detail: `Their sum is ${m(vertex.mul(Rational.of(2)).toTex())} ${m('= -b/a')} and their product is ${m(c.div(a).toTex())} ${m('= c/a')}, as they must be.` });
  const values = surdValues(pair);
  const approx = pair.imaginary
    ? ''
    : ` (${x} ≈ ${formatDecimal(values[0].re)} or ${x} ≈ ${formatDecimal(values[1].re)})`;
  return {
    solved: true,
    category: 'quadratic_equation',
    intent,
    problem,
    steps,
    finalAnswer: `${x} = ${formatSurdPair(pair)}${approx}${pair.imaginary ? ' (complex roots; no real solution)' : ''}`,
    answer: { kind: 'roots', variable: x, roots: values },
    verification: 'sum and product of the roots compared with -b/a and c/a (exact)',
  };

  function done(finalAnswer: string, roots: Rational[]): EngineSolution {
    return {
      solved: true,
      category: 'quadratic_equation',
      intent,
      problem,
      steps,
      finalAnswer,
      answer: { kind: 'roots', variable: x, roots: roots.map((r) => ({ re: r.toNumber(), im: 0, exact: r.toString() })) },
      verification: 'each root substituted into the equation (exact)',
    };
  }
}

/** p ± s√m: sum 2p = -b/a, product p² - s²m (real) or p² + s²m (complex) = c/a. */
function checkVieta(pair: SurdPair, a: Rational, b: Rational, c: Rational): void {
  const sum = pair.p.mul(Rational.of(2));
  const s2m = pair.s.mul(pair.s).mul(Rational.of(pair.m));
  const product = pair.imaginary ? pair.p.mul(pair.p).add(s2m) : pair.p.mul(pair.p).sub(s2m);
  if (!sum.equals(b.neg().div(a)) || !product.equals(c.div(a))) throw new Error('quadratic roots failed the sum/product check');
}

/** The leading coefficient of the integer factor for root r = q/p: (p·x - q). */
function leadOf(r: Rational): Rational {
  return Rational.of(r.den);
}

/** `(x - 3)`, `(2x + 1)` for the root r = q/p. */
function factorTex(x: string, r: Rational): string {
  const p = r.den;
  const q = r.num;
  const head = p === 1n ? x : `${p}${x}`;
  if (q === 0n) return p === 1n ? x : `(${head})`;
  return `(${head} ${q > 0n ? '-' : '+'} ${q > 0n ? q : -q})`;
}

function paren(value: Rational): string {
  return value.sign < 0 || !value.isInteger ? `\\left(${value.toTex()}\\right)` : value.toTex();
}
