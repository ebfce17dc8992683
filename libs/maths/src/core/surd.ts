import { spend } from './budget.js';
import { gcd, lcm, Rational } from './rational.js';

/** `p ± s·√m` (real) or `p ± s·√m·i` (complex), with p, s rational and m a square-free integer ≥ 1. */
export interface SurdPair {
  readonly p: Rational;
  readonly s: Rational;
  readonly m: bigint;
  readonly imaginary: boolean;
}

/** √q for a rational q ≥ 0 as k·√m with k rational and m square-free. */
export function sqrtRational(q: Rational): { readonly k: Rational; readonly m: bigint } {
  if (q.sign < 0) throw new RangeError('negative radicand');
  if (q.isZero) return { k: Rational.ZERO, m: 1n };
  // √(n/d) = √(n·d)/d
  const radicand = q.num * q.den;
  let k = 1n;
  let m = radicand;
  for (let f = 2n; f * f <= m; f++) {
    // Trial division runs up to √m: 10^7 divisions for a 15-digit radicand.
    if ((f & 1023n) === 0n) spend(1024, `finding the square factors of ${radicand}`);
    while (m % (f * f) === 0n) {
      m /= f * f;
      k *= f;
    }
  }
  return { k: Rational.of(k, q.den), m };
}

/** `(A ± B√m)/C` with integers, `A ± B√m`, `±B√m/C`, and `i` for complex pairs. */
export function formatSurdPair(pair: SurdPair): string {
  const C = lcm(pair.p.den, pair.s.den);
  const A = (pair.p.num * C) / pair.p.den;
  let B = (pair.s.num * C) / pair.s.den;
  if (B < 0n) B = -B;
  const g = gcd(gcd(A, B), C);
  const [a, b, c] = [A / g, B / g, C / g];
  const root = pair.m === 1n ? '' : `√${pair.m}`;
  const coefficient = b === 1n && (root !== '' || pair.imaginary) ? '' : String(b);
  const surd = pair.imaginary ? `${coefficient}i${root}` : `${coefficient}${root}`;
  const plusMinus = a === 0n ? `±${surd}` : `${a} ± ${surd}`;
  if (c === 1n) return plusMinus;
  return a === 0n ? `${plusMinus}/${c}` : `(${plusMinus})/${c}`;
}

/** The same in LaTeX. */
export function texSurdPair(pair: SurdPair): string {
  const C = lcm(pair.p.den, pair.s.den);
  const A = (pair.p.num * C) / pair.p.den;
  let B = (pair.s.num * C) / pair.s.den;
  if (B < 0n) B = -B;
  const g = gcd(gcd(A, B), C);
  const [a, b, c] = [A / g, B / g, C / g];
  const root = pair.m === 1n ? '' : `\\sqrt{${pair.m}}`;
  const coefficient = b === 1n && (root !== '' || pair.imaginary) ? '' : String(b);
  const surd = pair.imaginary ? `${coefficient}i${root}` : `${coefficient}${root}`;
  const top = a === 0n ? `\\pm ${surd}` : `${a} \\pm ${surd}`;
  return c === 1n ? top : `\\frac{${top}}{${c}}`;
}

/**
 * The two numeric values (re, im) of the pair: + first. The real root farther from zero is computed
 * directly and the nearer one from the exact product of the roots (p² − s²m): p − s√m computed as
 * doubles cancels when the two are close ("x² − 1000000x + 1 = 0" gave 0.000001000007614 for
 * 0.000001000000000001).
 */
export function surdValues(pair: SurdPair): [{ re: number; im: number }, { re: number; im: number }] {
  const p = pair.p.toNumber();
  const s = Math.abs(pair.s.toNumber()) * Math.sqrt(Number(pair.m));
  if (pair.imaginary) {
    return [
      { re: p, im: s },
      { re: p, im: -s },
    ];
  }
  const product = pair.p.mul(pair.p).sub(pair.s.mul(pair.s).mul(Rational.of(pair.m))).toNumber();
  const far = p >= 0 ? p + s : p - s;
  const near = far === 0 ? 0 : product / far;
  return p >= 0
    ? [
        { re: far, im: 0 },
        { re: near, im: 0 },
      ]
    : [
        { re: near, im: 0 },
        { re: far, im: 0 },
      ];
}
