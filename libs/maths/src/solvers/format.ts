import type { MathNode } from 'mathjs';
import { formatDecimal, type Rational } from '../core/rational.js';

/** `7/3 ≈ 2.333333333`, `5/2 = 2.5`, `4`: exact first, a decimal where it helps. */
export function exactWithDecimal(value: Rational): string {
  if (value.isInteger) return value.toString();
  const terminating = value.toTerminatingDecimal();
  return terminating !== undefined ? `${value.toString()} = ${terminating}` : `${value.toString()} ≈ ${formatDecimal(value.toNumber())}`;
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
