import { EXACT_LIMIT } from '../core/exact-range.js';
import { formatDecimal, Rational } from '../core/rational.js';

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

export function rounded(value: number, rounding: Rounding): number {
  if (rounding.kind === 'significant figures') return Number(value.toPrecision(Math.max(1, rounding.places)));
  const factor = 10 ** rounding.places;
  // Half away from zero, as taught; the epsilon keeps 2.675 (stored as 2.67499…) rounding up.
  return (Math.sign(value) * Math.round(Math.abs(value) * factor + 1e-9)) / factor;
}

/** `12.30` for 2 d.p. (trailing zeros kept: they are part of the answer asked for); `≈ 12.3457` with none asked. */
export function roundedText(value: number, rounding: Rounding | undefined): string {
  if (rounding === undefined) return formatDecimal(value, 6);
  const r = rounded(value, rounding);
  return rounding.kind === 'decimal places' ? r.toFixed(rounding.places) : String(r);
}

/** The rounding as a step: the value rounded (exactly, or as a double's 10 significant digits) and its rounding. */
export function roundingStep(value: number | string, roundedValue: string, rounding: Rounding): { title: string; detail: string } {
  return { title: `Round to ${rounding.places} ${rounding.places === 1 ? rounding.kind.replace(/s$/, '') : rounding.kind}`, detail: `${typeof value === 'number' ? formatDecimal(value, 10) : value} ≈ ${roundedValue}` };
}

/**
 * An exact value rounded as asked, half away from zero, by integer arithmetic: no double stands in for
 * it, so 9007199254740986/3 to 1 d.p. is 3002399751580328.7 (a double holds 3002399751580328.5), and
 * 0.1249999999995 to 2 d.p. is 0.12 (the doubles' rounding, nudged for typed halves, gave 0.13).
 * Decimal places keep their trailing zeros; significant figures are written without them, as `rounded`.
 */
export function roundedExactText(value: Rational, rounding: Rounding): string {
  const magnitude = value.abs();
  const places = rounding.kind === 'decimal places' ? rounding.places : Math.max(1, rounding.places) - 1 - powerOfTen(magnitude);
  // |value|·10^places rounded to a whole number, then written with `places` decimals (or zeros, when negative).
  const scale = 10n ** BigInt(Math.abs(places));
  const [num, den] = places >= 0 ? [magnitude.num * scale, magnitude.den] : [magnitude.num, magnitude.den * scale];
  const whole = num / den;
  const units = 2n * (num % den) >= den ? whole + 1n : whole;
  const sign = value.sign < 0 && units !== 0n ? '-' : '';
  if (places <= 0) return `${sign}${units * scale}`;
  const digits = units.toString().padStart(places + 1, '0');
  const text = `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return `${sign}${rounding.kind === 'significant figures' ? text.replace(/\.?0+$/, '') : text}`;
}

/** k with 10^k ≤ q < 10^(k+1), for q > 0, exactly. */
function powerOfTen(q: Rational): number {
  let k = q.num.toString().length - q.den.toString().length;
  const at = (power: number): Rational => (power >= 0 ? Rational.of(10n ** BigInt(power)) : Rational.of(1n, 10n ** BigInt(-power)));
  while (at(k).compare(q) > 0) k--;
  while (at(k + 1).compare(q) <= 0) k++;
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
