import { isConstantNode, type MathNode } from 'mathjs';
import type { Answer, EngineSolution } from '../types.js';
import { evaluateReal, freeVariables } from './mathjs.js';
import { Polynomial } from './polynomial.js';
import type { Rational } from './rational.js';

/**
 * The engine's numbers are doubles wherever they leave exact (bigint) arithmetic: its answers, the
 * values its checks compare, mathjs' evaluations. A double holds every whole number only up to 2^53, so
 * a result past it is carried, checked and compared as some neighbouring number ("2^53 + 1" is
 * 9007199254740992 to a double, and 10^30 − 0.35 equals 10^30). These helpers say where a number stops
 * being held, so the engine refuses it by name instead of answering or judging with it.
 */
export const EXACT_LIMIT = 2 ** 53;

/** The refusal every solver and check gives for such a number. */
export function pastExactRange(what: string): string {
  return `${what} is past 2^53 (9007199254740992), beyond which the maths engine does not compute exactly`;
}

/** Whether a double value is within the range where doubles hold every whole number. */
export function heldValue(value: number): boolean {
  return Number.isFinite(value) && Math.abs(value) < EXACT_LIMIT;
}

/** Whether an exact value survives the trip through a double: numerator and denominator within 2^53. */
export function heldRational(value: Rational): boolean {
  const limit = BigInt(Number.MAX_SAFE_INTEGER);
  return value.abs().num <= limit && value.den <= limit;
}

/** Whether a numeral survives mathjs' reading as a double: 15 significant digits, or a whole number a double holds. */
export function heldNumeral(numeral: string): boolean {
  const significant = numeral.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return significant.length <= 15 || (!numeral.includes('.') && Number.isSafeInteger(Number(numeral)));
}

/**
 * A numeral in text, plain ("123"), in scientific notation ("1e+17", "1.2E5") or as mathjs' LaTeX writes
 * large numbers ("1.23\cdot 10^{+17}"): the mantissa, the optional power of ten.
 */
const NUMERAL = /(?<![\d.])(\d+(?:\.\d+)?)(?:[eE]([+-]?\d+)|\s*\\cdot\s*10\^\{?([+-]?\d+)\}?|\s*[×x*]\s*10\s*\^\s*\(?([+-]?\d+)\)?)?(?![\d.])/g;

/**
 * The first numeral in `text` past 2^53, if any. Only the magnitude counts: a decimal's long tail is an
 * approximation's (≈ 1.4142135623730951), and a problem's own numerals were held to 15 digits when read.
 */
export function unheldNumeralIn(text: string): string | undefined {
  for (const match of text.matchAll(NUMERAL)) {
    const [whole, mantissa = '', ...powers] = match;
    const power = powers.find((p) => p !== undefined);
    if (!heldValue(Number(mantissa) * 10 ** Number(power ?? 0))) return whole.trim();
  }
  return undefined;
}

/** The numbers a structured answer carries. */
function answerNumbers(answer: Answer): number[] {
  switch (answer.kind) {
    case 'number':
      return [answer.value];
    case 'roots':
      return answer.roots.flatMap((r) => [r.re, r.im]);
    case 'assignment':
      return Object.values(answer.values);
    case 'inequality':
      return [answer.bound];
    case 'interval_set':
      return answer.intervals.flatMap((i) => [i.from?.value, i.to?.value]).filter((v): v is number => v !== undefined);
    case 'limit':
      return typeof answer.value === 'number' ? [answer.value] : [];
    case 'ratio':
      return [...answer.parts];
    case 'point':
      return [...answer.coordinates];
    case 'expression':
    case 'no_solution':
    case 'all_values':
    case 'truth':
      return [];
  }
}

/**
 * What in a solution is past the range doubles hold, named for the refusal; undefined when nothing is.
 * Every number the solution gives is looked at: its structured answer (what checks, relabelling and
 * caching use), the final answer and every step as written (exact forms such as "9900000000000004/11"
 * included, whose parts no double holds).
 */
export function unheldInSolution(solution: EngineSolution): string | undefined {
  const value = answerNumbers(solution.answer).find((n) => !heldValue(n));
  if (value !== undefined) return `the answer ${String(value)}`;
  const expression = solution.answer.kind === 'expression' ? unheldNumeralIn(solution.answer.expression) : undefined;
  if (expression !== undefined) return `the number ${expression} in the answer`;
  for (const text of [solution.finalAnswer, ...solution.steps.map((s) => s.detail)]) {
    const numeral = unheldNumeralIn(text);
    if (numeral !== undefined) return `the number ${numeral} in the working`;
  }
  return undefined;
}

/**
 * The first part of an expression without unknowns ("10^17", "2^60 - 2^60") whose value is past 2^53,
 * found exactly where the parts are rational and as a double otherwise: a problem's own numbers, before
 * any solver carries them as doubles (10^17 + 3 is 10^17 + 4 to a double).
 */
export function unheldConstantIn(node: MathNode): string | undefined {
  let found: string | undefined;
  node.traverse((part) => {
    if (found !== undefined || freeVariables(part).length > 0) return;
    const exact = isConstantNode(part) ? undefined : Polynomial.fromNode(part)?.constantValue();
    const held = exact !== undefined ? heldRational(exact) : heldOrNotReal(evaluateReal(part));
    if (!held) found = part.toString({ implicit: 'hide' });
  });
  return found;
}

/** A value a double holds, or one that is not a finite real (which the solvers refuse on their own terms). */
function heldOrNotReal(value: number | undefined): boolean {
  return value === undefined || heldValue(value);
}
