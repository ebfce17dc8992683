import { isConstantNode, isFunctionNode, isOperatorNode, isParenthesisNode, type MathNode } from 'mathjs';
import { Rational } from './rational.js';
import { sqrtRational } from './surd.js';

/** Bigger numbers than this (digits of a numerator or denominator) are refused, never worked with. */
const MAX_DIGITS = 40;

/**
 * An exact real number Σ kᵢ·√mᵢ with rational kᵢ and distinct square-free integers mᵢ ≥ 1 (m = 1 is
 * the rational part). Closed under +, −, ×; division works by a single term or by a two-term
 * denominator with one surd (multiplying by its conjugate). Anything else is undefined, never a
 * decimal: a surd answer is exact or it is not given.
 */
export class SurdSum {
  private constructor(readonly terms: ReadonlyMap<bigint, Rational>) {}

  static rational(q: Rational): SurdSum {
    return new SurdSum(q.isZero ? new Map() : new Map([[1n, q]]));
  }

  /** √q for rational q ≥ 0, as k√m. */
  static sqrt(q: Rational): SurdSum {
    const { k, m } = sqrtRational(q);
    return new SurdSum(k.isZero ? new Map() : new Map([[m, k]]));
  }

  /** The exact value of an expression of numbers, +, −, ×, ÷, integer powers and √ of rationals; undefined otherwise. */
  static fromNode(node: MathNode): SurdSum | undefined {
    if (isParenthesisNode(node)) return SurdSum.fromNode(node.content);
    if (isConstantNode(node)) {
      const q = typeof node.value === 'number' ? Rational.parse(String(node.value)) : undefined;
      return q === undefined ? undefined : SurdSum.rational(q);
    }
    if (isFunctionNode(node)) {
      if (node.fn.name !== 'sqrt' || node.args.length !== 1) return undefined;
      const inside = SurdSum.fromNode(node.args[0]!)?.asRational();
      return inside === undefined || inside.sign < 0 ? undefined : SurdSum.sqrt(inside);
    }
    if (!isOperatorNode(node)) return undefined;
    const args = node.args.map((a) => SurdSum.fromNode(a));
    if (args.some((a) => a === undefined)) {
      if (node.fn !== 'pow') return undefined;
    }
    const [a, b] = args;
    let result: SurdSum | undefined;
    switch (node.fn) {
      case 'unaryPlus':
        result = a;
        break;
      case 'unaryMinus':
        result = a?.scale(Rational.of(-1));
        break;
      case 'add':
        result = a!.add(b!);
        break;
      case 'subtract':
        result = a!.add(b!.scale(Rational.of(-1)));
        break;
      case 'multiply':
        result = a!.mul(b!);
        break;
      case 'divide':
        result = a!.div(b!);
        break;
      case 'pow': {
        const exponent = b?.asRational();
        if (a === undefined || exponent === undefined) return undefined;
        if (exponent.equals(Rational.of(1, 2))) {
          const q = a.asRational();
          result = q === undefined || q.sign < 0 ? undefined : SurdSum.sqrt(q);
        } else if (exponent.isInteger && exponent.sign >= 0 && exponent.num <= 12n) {
          result = SurdSum.rational(Rational.ONE);
          for (let i = 0n; i < exponent.num && result !== undefined; i++) result = result.mul(a);
        }
        break;
      }
      default:
        return undefined;
    }
    return result?.withinBounds() === true ? result : undefined;
  }

  asRational(): Rational | undefined {
    if (this.terms.size === 0) return Rational.ZERO;
    return this.terms.size === 1 && this.terms.has(1n) ? this.terms.get(1n) : undefined;
  }

  get isZero(): boolean {
    return this.terms.size === 0;
  }

  add(o: SurdSum): SurdSum {
    const out = new Map(this.terms);
    for (const [m, k] of o.terms) {
      const sum = (out.get(m) ?? Rational.ZERO).add(k);
      if (sum.isZero) out.delete(m);
      else out.set(m, sum);
    }
    return new SurdSum(out);
  }

  scale(q: Rational): SurdSum {
    if (q.isZero) return new SurdSum(new Map());
    return new SurdSum(new Map([...this.terms].map(([m, k]) => [m, k.mul(q)])));
  }

  mul(o: SurdSum): SurdSum {
    let out = new SurdSum(new Map());
    for (const [m1, k1] of this.terms) {
      for (const [m2, k2] of o.terms) {
        // √m1·√m2 = √(m1·m2), simplified again.
        out = out.add(SurdSum.sqrt(Rational.of(m1 * m2)).scale(k1.mul(k2)));
      }
    }
    return out;
  }

  div(o: SurdSum): SurdSum | undefined {
    if (o.isZero) return undefined;
    const entries = [...o.terms];
    if (entries.length === 1) {
      // a / (k√m) = a·√m / (k·m): the denominator made rational.
      const [m, k] = entries[0]!;
      return this.mul(SurdSum.sqrt(Rational.of(m))).scale(Rational.ONE.div(k.mul(Rational.of(m))));
    }
    if (entries.length === 2 && o.terms.has(1n)) {
      // a / (p + q√m) = a·(p − q√m) / (p² − q²m): multiply by the conjugate.
      const [m, q] = entries.find(([root]) => root !== 1n)!;
      const p = o.terms.get(1n)!;
      const conjugate = SurdSum.rational(p).add(SurdSum.sqrt(Rational.of(m)).scale(q.neg()));
      const denominator = p.mul(p).sub(q.mul(q).mul(Rational.of(m)));
      return denominator.isZero ? undefined : this.mul(conjugate).scale(Rational.ONE.div(denominator));
    }
    return undefined;
  }

  toNumber(): number {
    let total = 0;
    for (const [m, k] of this.terms) total += k.toNumber() * Math.sqrt(Number(m));
    return total;
  }

  /** `6√2`, `3 + 2√5`, `(3√2)/4`, `-√3`: the rational part first, then surds by increasing radicand. */
  toString(): string {
    return this.render((k) => k.toString(), (m) => `√${m}`, (top, den) => `${top}/${den}`);
  }

  toTex(): string {
    return this.render((k) => k.toTex(), (m) => `\\sqrt{${m}}`, (top, den) => `\\frac{${top}}{${den}}`);
  }

  private render(rational: (k: Rational) => string, root: (m: bigint) => string, fraction: (top: string, den: bigint) => string): string {
    if (this.terms.size === 0) return '0';
    const ordered = [...this.terms].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return ordered
      .map(([m, k], i) => {
        const magnitude = k.abs();
        const sign = k.sign < 0 ? (i === 0 ? '-' : ' - ') : i === 0 ? '' : ' + ';
        if (m === 1n) return `${sign}${rational(magnitude)}`;
        const whole = Rational.of(magnitude.num);
        const top = `${whole.equals(Rational.ONE) ? '' : rational(whole)}${root(m)}`;
        return `${sign}${magnitude.den === 1n ? top : fraction(top, magnitude.den)}`;
      })
      .join('');
  }

  private withinBounds(): boolean {
    return [...this.terms].every(([m, k]) => m.toString().length <= MAX_DIGITS && k.num.toString().length <= MAX_DIGITS && k.den.toString().length <= MAX_DIGITS);
  }
}
