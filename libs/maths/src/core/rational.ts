/**
 * Exact rational numbers on bigint, always in lowest terms with a positive denominator. The engine
 * computes every answer with these (never floats), so "exact answers" are exact by construction.
 */
export class Rational {
  private constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {}

  static readonly ZERO = new Rational(0n, 1n);
  static readonly ONE = new Rational(1n, 1n);

  static of(num: bigint | number, den: bigint | number = 1n): Rational {
    let n = BigInt(num);
    let d = BigInt(den);
    if (d === 0n) throw new RangeError('division by zero');
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    const g = gcd(n < 0n ? -n : n, d);
    return new Rational(n / g, d / g);
  }

  /** A finite decimal or integer literal ("2.75", "-3", "1e3") exactly; undefined for anything else. */
  static parse(text: string): Rational | undefined {
    const match = /^(-)?(\d*)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text.trim());
    if (match === null || (match[2] === '' && match[3] === undefined)) return undefined;
    const [, sign, whole = '', fraction = '', exponent] = match;
    let value = Rational.of(BigInt(`${whole || '0'}${fraction}`), 10n ** BigInt(fraction.length));
    const e = Number(exponent ?? 0);
    if (Math.abs(e) > 50) return undefined;
    value = e >= 0 ? value.mul(Rational.of(10n ** BigInt(e))) : value.div(Rational.of(10n ** BigInt(-e)));
    return sign === '-' ? value.neg() : value;
  }

  /** `7`, `-3/4` (as `toString` writes them), or a decimal as `parse` reads them; undefined for anything else. */
  static parseFraction(text: string): Rational | undefined {
    const match = /^\s*(-?\d+)\s*\/\s*(\d+)\s*$/.exec(text);
    if (match === null) return Rational.parse(text);
    return BigInt(match[2]!) === 0n ? undefined : Rational.of(BigInt(match[1]!), BigInt(match[2]!));
  }

  /** A float that is exactly an integer or a short decimal (as typed by a person); undefined otherwise. */
  static fromNumber(value: number): Rational | undefined {
    if (!Number.isFinite(value)) return undefined;
    return Rational.parse(String(value));
  }

  add(o: Rational): Rational {
    return Rational.of(this.num * o.den + o.num * this.den, this.den * o.den);
  }
  sub(o: Rational): Rational {
    return Rational.of(this.num * o.den - o.num * this.den, this.den * o.den);
  }
  mul(o: Rational): Rational {
    return Rational.of(this.num * o.num, this.den * o.den);
  }
  div(o: Rational): Rational {
    return Rational.of(this.num * o.den, this.den * o.num);
  }
  neg(): Rational {
    return new Rational(-this.num, this.den);
  }
  abs(): Rational {
    return this.num < 0n ? this.neg() : this;
  }
  /** Integer powers only (negative allowed). */
  pow(exponent: number): Rational {
    if (!Number.isInteger(exponent)) throw new RangeError('non-integer power');
    if (exponent < 0) return Rational.ONE.div(this.pow(-exponent));
    return Rational.of(this.num ** BigInt(exponent), this.den ** BigInt(exponent));
  }
  get isZero(): boolean {
    return this.num === 0n;
  }
  get isInteger(): boolean {
    return this.den === 1n;
  }
  get sign(): -1 | 0 | 1 {
    return this.num === 0n ? 0 : this.num < 0n ? -1 : 1;
  }
  equals(o: Rational): boolean {
    return this.num === o.num && this.den === o.den;
  }
  compare(o: Rational): number {
    return this.sub(o).sign;
  }
  toNumber(): number {
    return Number(this.num) / Number(this.den);
  }
  /** `7`, `-3/4`. */
  toString(): string {
    return this.den === 1n ? String(this.num) : `${this.num}/${this.den}`;
  }
  /** `7`, `-\frac{3}{4}`. */
  toTex(): string {
    if (this.den === 1n) return String(this.num);
    const sign = this.num < 0n ? '-' : '';
    return `${sign}\\frac{${this.num < 0n ? -this.num : this.num}}{${this.den}}`;
  }
  /** The exact decimal when it terminates within `maxDigits` places, else undefined. */
  toTerminatingDecimal(maxDigits = 6): string | undefined {
    let d = this.den;
    let twos = 0;
    let fives = 0;
    while (d % 2n === 0n) {
      d /= 2n;
      twos++;
    }
    while (d % 5n === 0n) {
      d /= 5n;
      fives++;
    }
    const places = Math.max(twos, fives);
    if (d !== 1n || places > maxDigits) return undefined;
    if (places === 0) return String(this.num);
    const scaled = (this.num * 10n ** BigInt(places)) / this.den;
    const negative = scaled < 0n;
    const digits = (negative ? -scaled : scaled).toString().padStart(places + 1, '0');
    return `${negative ? '-' : ''}${digits.slice(0, -places)}.${digits.slice(-places)}`;
  }
}

export function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

export function lcm(a: bigint, b: bigint): bigint {
  return (a / gcd(a, b)) * b;
}

/** 10 significant digits, trailing zeros dropped: how the engine prints approximations. */
export function formatDecimal(value: number, significant = 10): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(significant)));
}
