import { EXACT_LIMIT } from '../core/exact-range.js';
import { formatDecimal, Rational } from '../core/rational.js';
import { SurdSum } from '../core/surd-sum.js';

const PLACE_WORDS: Readonly<Record<string, number>> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };
const ROUNDING = /,?\s*(?:correct\s+)?to\s+(\d+|one|two|three|four|five|six)\s+(d\.?\s?p\.?|decimal places?|s\.?\s?f\.?|significant figures?)/i;
const NEAREST = /,?\s*to\s+the\s+nearest\s+(whole number|integer|tenth|hundredth|thousandth)/i;

/** A rounding instruction in the wording: "to 2 d.p.", "correct to 3 significant figures", "to the nearest tenth". */
export interface Rounding {
  readonly places: number;
  readonly kind: 'decimal places' | 'significant figures';
}

export function roundingAsked(text: string): Rounding | undefined {
  const match = ROUNDING.exec(text);
  if (match !== null) {
    const places = PLACE_WORDS[match[1]!.toLowerCase()] ?? Number(match[1]);
    return { places, kind: /^s/i.test(match[2]!) ? 'significant figures' : 'decimal places' };
  }
  const nearest = NEAREST.exec(text);
  if (nearest === null) return undefined;
  const places = { 'whole number': 0, integer: 0, tenth: 1, hundredth: 2, thousandth: 3 }[nearest[1]!.toLowerCase() as 'tenth'];
  return { places, kind: 'decimal places' };
}

/** The text without its rounding instruction, so templates that account for every number do not count "2" of "2 d.p.". */
export function withoutRounding(text: string): string {
  return text.replace(ROUNDING, '').replace(NEAREST, '');
}

/**
 * A double `unroundable` has cleared (not within its error of a half), rounded by its exact binary value:
 * the same rounding as the number it approximates, with no epsilon nudging it.
 */
function roundedDoubleText(value: number, rounding: Rounding): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  // value = mantissa / 2^halvings exactly: doubling a double is exact, and it is whole after at most 1074 doublings.
  let mantissa = value;
  let halvings = 0;
  while (!Number.isInteger(mantissa)) {
    mantissa *= 2;
    halvings++;
  }
  return roundedExactText(Rational.of(BigInt(mantissa), 2n ** BigInt(halvings)), rounding);
}

/**
 * A value to round as asked: exact (a rational, or a surd such as 5√2 from Pythagoras), or only a double
 * (a trigonometric side). Every answer rounded as asked is rounded here.
 */
export type RoundableValue = Rational | SurdSum | number;

/**
 * The value rounded as asked, half away from zero: an exact one exactly (a single surd k√m as the
 * square root of k²m, by integer square roots), a double only where `unroundable` finds its rounding
 * is the number's, else refused with the reason. `12.30` for 2 d.p. (trailing zeros kept).
 */
export function roundAsAsked(value: RoundableValue, rounding: Rounding): { readonly text: string } | { readonly refused: string } {
  if (value instanceof Rational) return { text: roundedExactText(value, rounding) };
  if (value instanceof SurdSum) {
    const rational = value.asRational();
    if (rational !== undefined) return { text: roundedExactText(rational, rounding) };
    const single = value.terms.size === 1 ? [...value.terms][0] : undefined;
    if (single !== undefined) return { text: roundedSquareRootText(single[1].pow(2).mul(Rational.of(single[0])), single[1].sign < 0, rounding) };
    return roundAsAsked(value.toNumber(), rounding);
  }
  const unsure = unroundable(value, rounding);
  return unsure === undefined ? { text: roundedDoubleText(value, rounding) } : { refused: unsure };
}

/** `12.3457`, the value shown beside `≈` where no rounding was asked: six significant figures. */
export function approximateText(value: number): string {
  return formatDecimal(value, 6);
}

/** The rounding as a step: the value rounded (exactly, or as a double's 10 significant digits) and its rounding. */
export function roundingStep(value: number | string, roundedValue: string, rounding: Rounding): { title: string; detail: string } {
  return { title: `Round to ${rounding.places} ${rounding.places === 1 ? rounding.kind.replace(/s$/, '') : rounding.kind}`, detail: `${typeof value === 'number' ? formatDecimal(value, 10) : value} ≈ ${roundedValue}` };
}

/**
 * An exact value rounded as asked, half away from zero, by integer arithmetic: no double stands in for
 * it, so 9007199254740986/3 to 1 d.p. is 3002399751580328.7 (a double holds 3002399751580328.5), and
 * 0.1249999999995 to 2 d.p. is 0.12 (the doubles' rounding, nudged for typed halves, gave 0.13).
 * Trailing zeros are kept: `12.30` to 2 d.p., `2.50` to 3 s.f.
 */
export function roundedExactText(value: Rational, rounding: Rounding): string {
  const magnitude = value.abs();
  if (magnitude.isZero) return writtenUnits(0n, rounding.kind === 'decimal places' ? rounding.places : Math.max(1, rounding.places) - 1, false, rounding);
  const places = rounding.kind === 'decimal places' ? rounding.places : Math.max(1, rounding.places) - 1 - powerOfTen(magnitude);
  // |value|·10^places rounded to a whole number, then written with `places` decimals (or zeros, when negative).
  const { num, den } = magnitude.mul(tenTo(places));
  const whole = num / den;
  const units = 2n * (num % den) >= den ? whole + 1n : whole;
  return writtenUnits(units, places, value.sign < 0, rounding);
}

/**
 * √square (negated when `negative`) rounded as asked, exactly: with X = square·10^(2·places), the units
 * kept are the largest n with (n − ½)² ≤ X, that is (j + 1)/2 for the largest odd j ≤ ⌊√⌊4X⌋⌋ (so an
 * exact half, X = (n − ½)², rounds up, away from zero).
 */
export function roundedSquareRootText(square: Rational, negative: boolean, rounding: Rounding): string {
  if (square.sign < 0) throw new Error('the square root of a negative number');
  if (square.isZero) return roundedExactText(Rational.ZERO, rounding);
  // 10^k ≤ √square < 10^(k+1) exactly when 10^(2k) ≤ square < 10^(2k+2).
  const places = rounding.kind === 'decimal places' ? rounding.places : Math.max(1, rounding.places) - 1 - Math.floor(powerOfTen(square) / 2);
  const { num, den } = square.mul(tenTo(2 * places)).mul(Rational.of(4n));
  const root = integerSquareRoot(num / den);
  const odd = root % 2n === 1n ? root : root - 1n;
  return writtenUnits((odd + 1n) / 2n, places, negative, rounding);
}

/**
 * Whole units of 10^-places written as a decimal, every place kept: a trailing zero is one of the figures
 * asked for (2.5 to 3 s.f. is `2.50`, to 2 d.p. `2.50`). A rounding that carries past a power of ten
 * (99.96 to 3 s.f.: 1000 units of 0.1) has one figure too many: it is written a place shorter (`100`).
 */
function writtenUnits(units: bigint, places: number, negative: boolean, rounding: Rounding): string {
  if (rounding.kind === 'significant figures' && units.toString().length > Math.max(1, rounding.places)) return writtenUnits(units / 10n, places - 1, negative, rounding);
  const sign = negative && units !== 0n ? '-' : '';
  if (places <= 0) return `${sign}${units * 10n ** BigInt(-places)}`;
  const digits = units.toString().padStart(places + 1, '0');
  return `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

function tenTo(power: number): Rational {
  return power >= 0 ? Rational.of(10n ** BigInt(power)) : Rational.of(1n, 10n ** BigInt(-power));
}

/** ⌊√n⌋ for n ≥ 0, by Newton's method on bigints. */
function integerSquareRoot(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const next = (x + n / x) / 2n;
    if (next >= x) return x;
    x = next;
  }
}

/** k with 10^k ≤ q < 10^(k+1), for q > 0, exactly. */
function powerOfTen(q: Rational): number {
  let k = q.num.toString().length - q.den.toString().length;
  while (tenTo(k).compare(q) > 0) k--;
  while (tenTo(k + 1).compare(q) <= 0) k++;
  return k;
}

/**
 * Why a double cannot be rounded as asked with confidence, or undefined when it can: the value scaled to
 * the last place kept is past 2^53 (its units are not held), or lies within the double's error of a
 * half (where rounding up or down is the double's accident, not the number's).
 */
export function unroundable(value: number, rounding: Rounding): string | undefined {
  if (!Number.isFinite(value) || value === 0) return undefined;
  const places = rounding.kind === 'decimal places' ? rounding.places : Math.max(1, rounding.places) - 1 - Math.floor(Math.log10(Math.abs(value)));
  const scaled = Math.abs(value) * 10 ** places;
  if (scaled >= EXACT_LIMIT / 2) return `${formatDecimal(value)} to ${rounding.places} ${rounding.kind} needs more digits than a double holds`;
  // A double carries ~16 significant digits; the solvers' float arithmetic loses a few more.
  const error = Math.max(scaled * 2 ** -40, 1e-12);
  const fraction = scaled - Math.floor(scaled);
  return Math.abs(fraction - 0.5) <= error ? `${formatDecimal(value, 16)} lies too close to halfway between two roundings to round it reliably` : undefined;
}
