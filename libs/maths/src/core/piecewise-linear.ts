import { isFunctionNode, isOperatorNode, isParenthesisNode, type MathNode } from 'mathjs';
import { Polynomial } from './polynomial.js';
import { Rational } from './rational.js';

/**
 * An expression in one unknown built from linear terms, absolute values, sums and constant multiples
 * ("2|x − 1| + 3", "||x| − 2|"): linear between the values where an absolute value's argument changes
 * sign, so a relation between two of them is solved case by case, exactly.
 */
export type PiecewiseLinear =
  | { readonly kind: 'linear'; readonly form: Polynomial }
  /** `argument`: the absolute value's argument as written (for the steps). */
  | { readonly kind: 'abs'; readonly inner: PiecewiseLinear; readonly argument: MathNode }
  | { readonly kind: 'sum'; readonly terms: readonly PiecewiseLinear[] }
  | { readonly kind: 'scaled'; readonly factor: Rational; readonly of: PiecewiseLinear };

/** More absolute values than this in one relation are refused: each one can double the cases. */
export const MAX_ABSOLUTE_VALUES = 6;

const unwrap = (node: MathNode): MathNode => (isParenthesisNode(node) ? unwrap(node.content) : node);

export function isAbs(node: MathNode): node is MathNode & { args: MathNode[] } {
  const inner = unwrap(node);
  return isFunctionNode(inner) && inner.fn.name === 'abs' && inner.args.length === 1;
}

export function holdsAbs(node: MathNode): boolean {
  return node.filter(isAbs).length > 0;
}

/** The expression read as piecewise linear in `variable`, or why it is not one (named for the refusal). */
export function readPiecewise(node: MathNode, variable: string): PiecewiseLinear | { readonly refused: string } {
  const count = node.filter(isAbs).length;
  if (count > MAX_ABSOLUTE_VALUES) return { refused: `more than ${MAX_ABSOLUTE_VALUES} absolute values in one relation` };
  try {
    return read(node, variable);
  } catch (error) {
    if (error instanceof NotPiecewise) return { refused: error.message };
    throw error;
  }
}

class NotPiecewise extends Error {}

function read(node: MathNode, variable: string): PiecewiseLinear {
  const n = unwrap(node);
  if (!holdsAbs(n)) {
    const form = Polynomial.fromNode(n);
    if (form === undefined || form.variables().some((v) => v !== variable)) throw new NotPiecewise(`${n.toString()} beside an absolute value is not a polynomial in ${variable}`);
    if (form.degree() > 1) throw new NotPiecewise(`a term of degree ${form.degree()} (${n.toString()}) beside an absolute value; the engine splits relations that are linear in each case`);
    return { kind: 'linear', form };
  }
  if (isAbs(n)) return { kind: 'abs', inner: read(n.args[0]!, variable), argument: n.args[0]! };
  if (!isOperatorNode(n)) throw new NotPiecewise(`${n.toString()} is not a sum of linear terms and absolute values`);
  const [a, b] = n.args;
  switch (n.fn) {
    case 'add':
      return { kind: 'sum', terms: [read(a!, variable), read(b!, variable)] };
    case 'subtract':
      return { kind: 'sum', terms: [read(a!, variable), { kind: 'scaled', factor: Rational.of(-1), of: read(b!, variable) }] };
    case 'unaryMinus':
      return { kind: 'scaled', factor: Rational.of(-1), of: read(a!, variable) };
    case 'unaryPlus':
      return read(a!, variable);
    case 'multiply': {
      const factor = constantOf(a!) ?? constantOf(b!);
      if (factor === undefined) throw new NotPiecewise(`${n.toString()} multiplies two expressions in ${variable}; the engine splits relations that are linear in each case`);
      return { kind: 'scaled', factor, of: read(constantOf(a!) === undefined ? a! : b!, variable) };
    }
    case 'divide': {
      const divisor = constantOf(b!);
      if (divisor === undefined || divisor.isZero) throw new NotPiecewise(`${n.toString()} divides by an expression in ${variable} (or by 0)`);
      return { kind: 'scaled', factor: Rational.ONE.div(divisor), of: read(a!, variable) };
    }
    default:
      throw new NotPiecewise(`${n.toString()} is not a sum of linear terms and absolute values`);
  }
}

function constantOf(node: MathNode): Rational | undefined {
  return holdsAbs(node) ? undefined : Polynomial.fromNode(node)?.constantValue();
}

/** The expression's value at `x`, exactly, straight from its definition (|a| as the magnitude of a). */
export function valueAt(pl: PiecewiseLinear, variable: string, x: Rational): Rational {
  switch (pl.kind) {
    case 'linear':
      return pl.form.evaluate({ [variable]: x });
    case 'abs':
      return valueAt(pl.inner, variable, x).abs();
    case 'sum':
      return pl.terms.reduce((total, t) => total.add(valueAt(t, variable, x)), Rational.ZERO);
    case 'scaled':
      return valueAt(pl.of, variable, x).mul(pl.factor);
  }
}

/** How one absolute value is written in a case: its argument's linear form there, kept or negated. */
export interface AbsoluteChoice {
  readonly argument: MathNode;
  readonly form: Polynomial;
  readonly negated: boolean;
}

/**
 * The linear form the expression takes around `x`, a point where no absolute value's argument is zero
 * (inside a case), with the form each absolute value took there (`choices`, in reading order).
 */
export function linearAround(pl: PiecewiseLinear, variable: string, x: Rational, choices: AbsoluteChoice[] = []): Polynomial {
  switch (pl.kind) {
    case 'linear':
      return pl.form;
    case 'abs': {
      const form = linearAround(pl.inner, variable, x, choices);
      const negated = form.evaluate({ [variable]: x }).sign < 0;
      choices.push({ argument: pl.argument, form, negated });
      return negated ? form.neg() : form;
    }
    case 'sum':
      return pl.terms.reduce((total, t) => total.add(linearAround(t, variable, x, choices)), Polynomial.constant(Rational.ZERO));
    case 'scaled':
      return linearAround(pl.of, variable, x, choices).scale(pl.factor);
  }
}

/**
 * The values where an absolute value's argument is zero, in increasing order, each once: between two
 * of them (and beyond the last) the expression is linear. An argument that holds absolute values is
 * linear between its own such values, so its zeros are looked for there.
 */
export function breakpoints(pl: PiecewiseLinear, variable: string): Rational[] {
  switch (pl.kind) {
    case 'linear':
      return [];
    case 'sum':
      return distinct(pl.terms.flatMap((t) => breakpoints(t, variable)));
    case 'scaled':
      return breakpoints(pl.of, variable);
    case 'abs': {
      const inner = breakpoints(pl.inner, variable);
      const zeros = casesBetween(inner).flatMap(({ from, to, inside }) => {
        const [constant = Rational.ZERO, slope = Rational.ZERO] = linearAround(pl.inner, variable, inside).coefficients(variable) ?? [];
        if (slope.isZero) return [];
        const zero = constant.neg().div(slope);
        return (from === undefined || zero.compare(from) >= 0) && (to === undefined || zero.compare(to) <= 0) ? [zero] : [];
      });
      return distinct([...inner, ...zeros]);
    }
  }
}

/** Sorted, each value once. */
function distinct(values: readonly Rational[]): Rational[] {
  const sorted = [...values].sort((a, b) => a.compare(b));
  return sorted.filter((v, i) => i === 0 || !v.equals(sorted[i - 1]!));
}

/** A case between two consecutive breakpoints (absent: unbounded), with a point strictly inside it. */
export interface Case {
  readonly from?: Rational;
  readonly to?: Rational;
  readonly inside: Rational;
}

/** The cases sorted breakpoints cut the line into: (−∞, b1), (b1, b2), …, (bk, ∞); the whole line without any. */
export function casesBetween(points: readonly Rational[]): Case[] {
  if (points.length === 0) return [{ inside: Rational.ZERO }];
  const cases: Case[] = [{ to: points[0]!, inside: points[0]!.sub(Rational.ONE) }];
  for (let i = 0; i + 1 < points.length; i++) cases.push({ from: points[i]!, to: points[i + 1]!, inside: points[i]!.add(points[i + 1]!).div(Rational.of(2)) });
  cases.push({ from: points.at(-1)!, inside: points.at(-1)!.add(Rational.ONE) });
  return cases;
}
