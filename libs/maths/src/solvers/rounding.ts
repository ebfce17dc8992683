import { formatDecimal } from '../core/rational.js';

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

export function roundingStep(value: number, rounding: Rounding): { title: string; detail: string } {
  return { title: `Round to ${rounding.places} ${rounding.places === 1 ? rounding.kind.replace(/s$/, '') : rounding.kind}`, detail: `${formatDecimal(value, 10)} ≈ ${roundedText(value, rounding)}` };
}
