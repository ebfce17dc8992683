import type { MathNode } from 'mathjs';
import { formatDecimal, Rational } from '../core/rational.js';
import { roundedExactText } from './rounding.js';

/**
 * `7/3 ≈ 2.333333333`, `5/2 = 2.5`, `4`: exact first, a decimal where it helps. Past 10^9 the decimal is
 * the exact value to 2 places (`10^12/3 ≈ 333333333333.33`), not 10 significant figures of its double
 * (`≈ 333333333300`, which reads as a whole number the answer is not).
 */
export function exactWithDecimal(value: Rational): string {
  if (value.isInteger) return value.toString();
  const terminating = value.toTerminatingDecimal();
  if (terminating !== undefined) return `${value.toString()} = ${terminating}`;
  const large = value.abs().compare(Rational.of(10n ** 9n)) >= 0;
  return `${value.toString()} ≈ ${large ? roundedExactText(value, { places: 2, kind: 'decimal places' }) : formatDecimal(value.toNumber())}`;
}

export function rationalTex(value: Rational): string {
  return value.isInteger ? value.toString() : `\\left(${value.toTex()}\\right)`;
}

/** An expression as a student reads it: implicit products hidden, the natural logarithm written ln. */
export function displayText(node: MathNode): string {
  return node
    .toString({ implicit: 'hide' })
    .replace(/\s*\^\s*/g, '^')
    .replace(/\blog\(/g, 'ln(');
}
