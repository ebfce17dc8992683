import { isConstantNode, isOperatorNode, isParenthesisNode, isSymbolNode, type MathNode } from 'mathjs';
import { Rational } from './rational.js';

/** A monomial's exponents by variable name (only positive exponents are stored). */
type Exponents = Readonly<Record<string, number>>;

interface Term {
  readonly exponents: Exponents;
  readonly coef: Rational;
}

/** Names that are constants, never unknowns. */
export const CONSTANT_NAMES = new Set(['pi', 'e', 'i', 'tau', 'phi', 'Infinity', 'NaN']);

/**
 * A polynomial in any number of variables with exact rational coefficients. It is what the engine
 * reasons with for equations, systems, inequalities, expansion, factoring, rational expressions and
 * limits: exact, canonical, and independent of any CAS's printing.
 */
export class Polynomial {
  private constructor(private readonly terms: ReadonlyMap<string, Term>) {}

  static constant(value: Rational): Polynomial {
    return new Polynomial(value.isZero ? new Map() : new Map([['', { exponents: {}, coef: value }]]));
  }

  static variable(name: string): Polynomial {
    return new Polynomial(new Map([[name, { exponents: { [name]: 1 }, coef: Rational.ONE }]]));
  }

  /** A univariate polynomial from coefficients, lowest degree first. */
  static fromCoefficients(variable: string, coefficients: readonly Rational[]): Polynomial {
    let p = Polynomial.constant(Rational.ZERO);
    coefficients.forEach((c, degree) => {
      p = p.add(Polynomial.variable(variable).pow(degree).scale(c));
    });
    return p;
  }

  /** The polynomial a mathjs expression denotes, or undefined when it is not one (functions, x^-1, /x). */
  static fromNode(node: MathNode): Polynomial | undefined {
    if (isParenthesisNode(node)) return Polynomial.fromNode(node.content);
    if (isConstantNode(node)) {
      const value = typeof node.value === 'number' ? Rational.fromNumber(node.value) : undefined;
      return value === undefined ? undefined : Polynomial.constant(value);
    }
    if (isSymbolNode(node)) return CONSTANT_NAMES.has(node.name) ? undefined : Polynomial.variable(node.name);
    if (!isOperatorNode(node)) return undefined;
    const args = node.args.map((a) => Polynomial.fromNode(a));
    if (args.some((a) => a === undefined)) return undefined;
    const [a, b] = args as Polynomial[];
    if (a === undefined) return undefined;
    switch (node.fn) {
      case 'unaryMinus':
        return a.neg();
      case 'unaryPlus':
        return a;
      case 'add':
        return b && a.add(b);
      case 'subtract':
        return b && a.sub(b);
      case 'multiply':
        return b && a.mul(b);
      case 'divide': {
        const divisor = b?.constantValue();
        return divisor === undefined || divisor.isZero ? undefined : a.scale(Rational.ONE.div(divisor));
      }
      case 'pow': {
        const exponent = b?.constantValue();
        if (exponent === undefined || !exponent.isInteger || exponent.sign < 0 || exponent.num > 12n) return undefined;
        return a.pow(Number(exponent.num));
      }
      default:
        return undefined;
    }
  }

  add(o: Polynomial): Polynomial {
    const out = new Map(this.terms);
    for (const [key, term] of o.terms) {
      const sum = (out.get(key)?.coef ?? Rational.ZERO).add(term.coef);
      if (sum.isZero) out.delete(key);
      else out.set(key, { exponents: term.exponents, coef: sum });
    }
    return new Polynomial(out);
  }
  sub(o: Polynomial): Polynomial {
    return this.add(o.neg());
  }
  neg(): Polynomial {
    return this.scale(Rational.of(-1));
  }
  scale(factor: Rational): Polynomial {
    if (factor.isZero) return Polynomial.constant(Rational.ZERO);
    return new Polynomial(new Map([...this.terms].map(([k, t]) => [k, { exponents: t.exponents, coef: t.coef.mul(factor) }])));
  }
  mul(o: Polynomial): Polynomial {
    let out = Polynomial.constant(Rational.ZERO);
    for (const a of this.terms.values()) {
      for (const b of o.terms.values()) {
        const exponents: Record<string, number> = { ...a.exponents };
        for (const [v, e] of Object.entries(b.exponents)) exponents[v] = (exponents[v] ?? 0) + e;
        out = out.add(new Polynomial(new Map([[monomialKey(exponents), { exponents, coef: a.coef.mul(b.coef) }]])));
      }
    }
    return out;
  }
  pow(n: number): Polynomial {
    let out = Polynomial.constant(Rational.ONE);
    for (let i = 0; i < n; i++) out = out.mul(this);
    return out;
  }

  get isZero(): boolean {
    return this.terms.size === 0;
  }
  /** The value when the polynomial has no variables. */
  constantValue(): Rational | undefined {
    if (this.terms.size === 0) return Rational.ZERO;
    if (this.terms.size === 1 && this.terms.has('')) return this.terms.get('')!.coef;
    return undefined;
  }
  variables(): string[] {
    const names = new Set<string>();
    for (const t of this.terms.values()) for (const v of Object.keys(t.exponents)) names.add(v);
    return [...names].sort();
  }
  /** Total degree. */
  degree(): number {
    let d = 0;
    for (const t of this.terms.values()) d = Math.max(d, totalDegree(t.exponents));
    return d;
  }
  /** Coefficients of a univariate polynomial, lowest degree first; undefined if other variables appear. */
  coefficients(variable: string): Rational[] | undefined {
    const out: Rational[] = [];
    for (const t of this.terms.values()) {
      const names = Object.keys(t.exponents);
      if (names.some((n) => n !== variable)) return undefined;
      const e = t.exponents[variable] ?? 0;
      while (out.length <= e) out.push(Rational.ZERO);
      out[e] = t.coef;
    }
    return out.length === 0 ? [Rational.ZERO] : out;
  }
  /** Coefficients by power of one variable, lowest power first, each a polynomial in the other variables. */
  coefficientsIn(variable: string): Polynomial[] {
    const out: Polynomial[] = [];
    for (const t of this.terms.values()) {
      const power = t.exponents[variable] ?? 0;
      const rest: Record<string, number> = { ...t.exponents };
      delete rest[variable];
      while (out.length <= power) out.push(Polynomial.constant(Rational.ZERO));
      out[power] = out[power]!.add(new Polynomial(new Map([[monomialKey(rest), { exponents: rest, coef: t.coef }]])));
    }
    return out.length === 0 ? [Polynomial.constant(Rational.ZERO)] : out;
  }
  /** For a polynomial of degree ≤ 1: the coefficient of each variable and the constant term. */
  linearParts(): { readonly coefficients: ReadonlyMap<string, Rational>; readonly constant: Rational } | undefined {
    const coefficients = new Map<string, Rational>();
    let constant = Rational.ZERO;
    for (const t of this.terms.values()) {
      const names = Object.keys(t.exponents);
      if (names.length === 0) constant = t.coef;
      else if (names.length === 1 && t.exponents[names[0]!] === 1) coefficients.set(names[0]!, t.coef);
      else return undefined;
    }
    return { coefficients, constant };
  }
  evaluate(values: Readonly<Record<string, Rational>>): Rational {
    let sum = Rational.ZERO;
    for (const t of this.terms.values()) {
      let product = t.coef;
      for (const [v, e] of Object.entries(t.exponents)) {
        const value = values[v];
        if (value === undefined) throw new Error(`no value for ${v}`);
        product = product.mul(value.pow(e));
      }
      sum = sum.add(product);
    }
    return sum;
  }
  equals(o: Polynomial): boolean {
    return this.sub(o).isZero;
  }

  /** mathjs syntax, highest degree first: `2*x^2 - 3*x + 1` (parseable back). */
  toString(): string {
    return this.render(
      (c) => c.toString(),
      (v, e) => (e === 1 ? v : `${v}^${e}`),
      '*',
    );
  }
  /** Display form: `2x^2 - 3x + 1`, fractions as `(1/2)x`. */
  toDisplay(): string {
    return this.render(
      (c) => (c.isInteger ? c.toString() : `(${c.toString()})`),
      (v, e) => (e === 1 ? v : `${v}^${e}`),
      '',
    );
  }
  toTex(): string {
    return this.render(
      (c) => c.toTex(),
      (v, e) => (e === 1 ? v : `${v}^{${e}}`),
      ' ',
    );
  }

  private render(coef: (c: Rational) => string, power: (v: string, e: number) => string, times: string): string {
    const sorted = [...this.terms.values()].sort((a, b) => totalDegree(b.exponents) - totalDegree(a.exponents) || gradedLex(a.exponents, b.exponents));
    if (sorted.length === 0) return '0';
    let out = '';
    sorted.forEach((t, i) => {
      const negative = t.coef.sign < 0;
      const magnitude = t.coef.abs();
      const vars = Object.keys(t.exponents)
        .sort()
        .map((v) => power(v, t.exponents[v]!))
        .join(times === '' ? '' : times);
      let body: string;
      if (vars === '') body = coef(magnitude);
      else if (magnitude.equals(Rational.ONE)) body = vars;
      else body = `${coef(magnitude)}${times}${vars}`;
      out += i === 0 ? `${negative ? '-' : ''}${body}` : ` ${negative ? '-' : '+'} ${body}`;
    });
    return out;
  }
}

function monomialKey(exponents: Exponents): string {
  return Object.keys(exponents)
    .filter((v) => exponents[v] !== 0)
    .sort()
    .map((v) => (exponents[v] === 1 ? v : `${v}^${exponents[v]}`))
    .join('*');
}

/** Among terms of equal degree, a higher power of the alphabetically first variable comes first: a², ab, b². */
function gradedLex(a: Exponents, b: Exponents): number {
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const v of names) {
    const d = (b[v] ?? 0) - (a[v] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

function totalDegree(exponents: Exponents): number {
  return Object.values(exponents).reduce((s, e) => s + e, 0);
}
