import { heldValue } from '../core/exact-range.js';
import { evaluateReal, freeVariables, magnitudeOfTerms } from '../core/mathjs.js';
import { ambiguousComma, mathStatements } from '../text/extract.js';
import { normaliseMaths } from '../text/normalise.js';
import { DOUBLE_NOISE, sameNumber } from '../core/same-number.js';
import { strayToken } from '../text/stray-tokens.js';

export type SubstitutionVerdict = { readonly satisfied: boolean; readonly detail: string } | undefined;

/**
 * For an equation in one unknown that the engine does not solve (a cubic, a trigonometric
 * equation): do the claimed real roots satisfy it? Each root must make the two sides equal, or
 * (for a root written with rounded decimals) the difference must change sign within the rounding.
 * This catches wrong roots, not missing ones. Undefined when there is no such equation.
 */
export function substituteRoots(problem: string, variable: string, roots: readonly { readonly value: number; readonly tolerance: number }[]): SubstitutionVerdict {
  const normalised = normaliseMaths(problem);
  // Maths the engine does not read whole ("sy-4=2y+11", a misread "5y") has no equation to substitute
  // into: the part left after the unread token is another equation, and judging by it would reject a right answer.
  if (strayToken(normalised) !== undefined || ambiguousComma(normalised) !== undefined) return undefined;
  const relations = mathStatements(normalised).filter((s) => s.kind === 'relation');
  if (relations.length !== 1 || relations[0]!.kind !== 'relation' || relations[0]!.op !== '=') return undefined;
  const { lhs, rhs } = relations[0]!;
  const variables = [...new Set([...freeVariables(lhs), ...freeVariables(rhs)])];
  if (variables.length !== 1) return undefined;
  const x = variables[0]!;
  if (variable !== x) return { satisfied: false, detail: `the answer is given for ${variable}, but the equation is in ${x}` };
  const residual = (value: number): number | undefined => {
    const l = evaluateReal(lhs, { [x]: value });
    const r = evaluateReal(rhs, { [x]: value });
    return l === undefined || r === undefined ? undefined : l - r;
  };
  for (const root of roots) {
    // Past 2^53 the sides are doubles that equal their neighbours (10^30 − 0.35 is 10^30): no verdict.
    const sides = [evaluateReal(lhs, { [x]: root.value }), evaluateReal(rhs, { [x]: root.value })];
    if (!heldValue(root.value) || sides.some((side) => side !== undefined && !heldValue(side))) return undefined;
    const at = residual(root.value);
    if (at === undefined) return { satisfied: false, detail: `${x} = ${root.value} is outside the equation's domain` };
    // The sides equal to floating-point noise relative to the size of their terms (no absolute allowance:
    // x³ = 8·10^-18 is not satisfied by x = 0.000003 because both sides are below 10^-9).
    if (sameNumber(sides[0]!, sides[1]!, { scale: Math.max(magnitudeOfTerms(lhs, { [x]: root.value }) ?? 0, magnitudeOfTerms(rhs, { [x]: root.value }) ?? 0) })) continue;
    // Or the difference changes sign within the precision written (an exact form: within its floating-point noise).
    const within = Math.max(root.tolerance, DOUBLE_NOISE * Math.abs(root.value));
    const below = residual(root.value - within);
    const above = residual(root.value + within);
    if (below !== undefined && above !== undefined && Math.sign(below) !== Math.sign(above)) continue;
    return { satisfied: false, detail: `substituting ${x} = ${root.value} leaves the sides unequal (difference ${at.toPrecision(4)})` };
  }
  return { satisfied: true, detail: `each root satisfies the equation on substitution` };
}
