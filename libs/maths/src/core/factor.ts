import { Polynomial } from './polynomial.js';
import { gcd, lcm, Rational } from './rational.js';

export interface Factor {
  /** Primitive with integer coefficients and a positive leading coefficient. */
  readonly poly: Polynomial;
  readonly power: number;
}

export interface Factorisation {
  readonly constant: Rational;
  readonly factors: readonly Factor[];
  /** Human-readable account of how it was found, one entry per move. */
  readonly moves: readonly { readonly title: string; readonly detail: string }[];
}

/**
 * Factors a polynomial in one variable over the rationals: the common numeric factor, the common
 * power of x, then linear factors from rational roots (rational-root theorem, synthetic division).
 * What is left must be of degree ≤ 3 with no rational root, which makes it irreducible over the
 * rationals; a larger remainder is undefined (not claimed).
 */
export function factorUnivariate(p: Polynomial, x: string): Factorisation | undefined {
  const coefficients = p.coefficients(x);
  if (coefficients === undefined || p.isZero) return undefined;
  const moves: { title: string; detail: string }[] = [];
  // Scale to integers and take the content out.
  const denominator = coefficients.reduce((acc, c) => lcm(acc, c.den), 1n);
  let ints = coefficients.map((c) => (c.num * denominator) / c.den);
  let content = ints.reduce((acc, c) => gcd(acc, c), 0n);
  if (ints.at(-1)! < 0n) content = -content;
  ints = ints.map((c) => c / content);
  const constant = Rational.of(content, denominator);
  if (!constant.equals(Rational.ONE)) moves.push({ title: 'Take out the common factor', detail: `\\(${constant.toTex()}\\left(${fromInts(x, ints).toTex()}\\right)\\)` });
  const factors: Factor[] = [];
  let low = 0;
  while (ints[low] === 0n) low++;
  if (low > 0) {
    factors.push({ poly: Polynomial.variable(x), power: low });
    ints = ints.slice(low);
    moves.push({ title: `Take out the common power of ${x}`, detail: `\\(${x}${low > 1 ? `^{${low}}` : ''}\\) divides every term.` });
  }
  // Rational roots p/q: p divides the constant term, q the leading coefficient.
  for (let guard = 0; ints.length > 2 && guard < 12; guard++) {
    const root = findRationalRoot(ints);
    if (root === undefined) break;
    const linear = fromInts(x, [-root.num, root.den]);
    ints = divideByRoot(ints, root);
    const existing = factors.find((f) => f.poly.equals(linear));
    if (existing !== undefined) factors[factors.indexOf(existing)] = { poly: linear, power: existing.power + 1 };
    else factors.push({ poly: linear, power: 1 });
    moves.push({
      title: `Find the root ${x} = ${root.toString()}`,
      detail: `Substituting \\(${x} = ${root.toTex()}\\) gives \\(0\\), so \\(${linear.toTex()}\\) is a factor; dividing leaves \\(${fromInts(x, ints).toTex()}\\).`,
    });
  }
  if (ints.length === 3) {
    const root = findRationalRoot(ints);
    if (root !== undefined) {
      const linear = fromInts(x, [-root.num, root.den]);
      const rest = divideByRoot(ints, root);
      for (const poly of [linear, fromInts(x, rest)]) {
        const existing = factors.find((f) => f.poly.equals(poly));
        if (existing !== undefined) factors[factors.indexOf(existing)] = { poly, power: existing.power + 1 };
        else factors.push({ poly, power: 1 });
      }
      moves.push({ title: 'Factor the quadratic', detail: `Its roots are rational: \\(${linear.toTex()}\\) and \\(${fromInts(x, rest).toTex()}\\).` });
      ints = [1n];
    }
  }
  if (ints.length > 4) return undefined; // degree ≥ 4 without rational roots: it may still factor; not claimed
  if (ints.length > 1) {
    const rest = fromInts(x, ints);
    const same = factors.findIndex((f) => f.poly.equals(rest));
    if (same >= 0) factors[same] = { poly: rest, power: factors[same]!.power + 1 };
    else factors.push({ poly: rest, power: 1 });
    if (ints.length > 2) moves.push({ title: 'The rest does not factor over the rationals', detail: `\\(${rest.toTex()}\\) has no rational root.` });
  }
  return { constant, factors, moves };
}

/** Multiplies a factorisation back out (the check every factoring answer passes). */
export function expandFactorisation(f: Factorisation): Polynomial {
  return f.factors.reduce((acc, factor) => acc.mul(factor.poly.pow(factor.power)), Polynomial.constant(f.constant));
}

export function factorisationText(f: Factorisation, style: 'display' | 'tex' | 'mathjs'): string {
  const parts = f.factors.map((factor) => {
    const body = style === 'tex' ? factor.poly.toTex() : style === 'mathjs' ? factor.poly.toString() : factor.poly.toDisplay();
    const single = factor.poly.variables().length === 1 && factor.poly.degree() === 1 && factor.poly.coefficients(factor.poly.variables()[0]!)!.length === 2 && factor.poly.coefficients(factor.poly.variables()[0]!)![0]!.isZero;
    const wrapped = single && /^[a-z]+$/i.test(body) ? body : `(${body})`;
    const power = factor.power === 1 ? '' : style === 'tex' ? `^{${factor.power}}` : `^${factor.power}`;
    return `${wrapped}${power}`;
  });
  const joiner = style === 'mathjs' ? '*' : '';
  const constant = f.constant.equals(Rational.ONE) ? '' : f.constant.equals(Rational.of(-1)) ? '-' : style === 'tex' ? f.constant.toTex() : f.constant.isInteger ? f.constant.toString() : `(${f.constant.toString()})`;
  if (parts.length === 0) return f.constant.toString();
  return style === 'mathjs' ? [constant === '-' ? '-1' : constant, ...parts].filter((s) => s !== '').join(joiner) : `${constant}${parts.join(joiner)}`;
}

function fromInts(x: string, ints: readonly bigint[]): Polynomial {
  return Polynomial.fromCoefficients(
    x,
    ints.map((c) => Rational.of(c)),
  );
}

function divisors(n: bigint): bigint[] {
  const a = n < 0n ? -n : n;
  const out: bigint[] = [];
  for (let d = 1n; d * d <= a && d < 100_000n; d++) {
    if (a % d === 0n) {
      out.push(d);
      if (d * d !== a) out.push(a / d);
    }
  }
  return out;
}

function findRationalRoot(ints: readonly bigint[]): Rational | undefined {
  const constant = ints[0]!;
  const lead = ints.at(-1)!;
  if (constant === 0n) return Rational.ZERO;
  const candidates = divisors(constant).flatMap((p) => divisors(lead).map((q) => Rational.of(p, q)));
  const sorted = candidates.sort((a, b) => a.compare(b));
  for (const r of sorted) {
    for (const root of [r, r.neg()]) {
      if (evaluateInts(ints, root).isZero) return root;
    }
  }
  return undefined;
}

function evaluateInts(ints: readonly bigint[], x: Rational): Rational {
  let acc = Rational.ZERO;
  for (let i = ints.length - 1; i >= 0; i--) acc = acc.mul(x).add(Rational.of(ints[i]!));
  return acc;
}

/** Divides by (den·x - num) for the root num/den, keeping integer coefficients. */
function divideByRoot(ints: readonly bigint[], root: Rational): bigint[] {
  // Synthetic division by (x - r) gives rational coefficients; divide them by den to absorb it.
  const n = ints.length - 1;
  const quotient: Rational[] = new Array<Rational>(n).fill(Rational.ZERO);
  let carry = Rational.ZERO;
  for (let i = n; i >= 1; i--) {
    carry = carry.mul(root).add(Rational.of(ints[i]!));
    quotient[i - 1] = carry;
  }
  return quotient.map((q) => {
    const value = q.div(Rational.of(root.den));
    if (!value.isInteger) throw new Error('non-integer quotient after dividing by a primitive linear factor');
    return value.num;
  });
}
