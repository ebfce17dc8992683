import { evaluate } from 'mathjs';
import type { Answer } from '@openpaw/maths';
import type { Label } from './labels.js';

const TOLERANCE = 1e-6;
const SAMPLES = [0.35, 0.8, 1.3, 1.9, 2.6, 3.3];

/**
 * Does the engine's structured answer equal the label? Compared numerically by the bench: values
 * within 1e-6 (relative), expressions as functions at sample points (up to a constant for
 * antiderivatives), factored forms also required to be written as a product.
 */
export function matches(answer: Answer, label: Label): boolean {
  switch (label.kind) {
    case 'roots':
      return answer.kind === 'roots' && sameSet(answer.roots, label.roots);
    case 'number':
      return answer.kind === 'number' && close(answer.value, label.value);
    case 'assignment':
      return answer.kind === 'assignment' && Object.keys(label.values).length === Object.keys(answer.values).length && Object.entries(label.values).every(([k, v]) => answer.values[k] !== undefined && close(answer.values[k], v));
    case 'inequality':
      return answer.kind === 'inequality' && answer.relation === label.relation && close(answer.bound, label.bound);
    case 'interval_set': {
      if (answer.kind !== 'interval_set' || answer.intervals.length !== label.intervals.length) return false;
      const sameEnd = (a: { value: number; closed: boolean } | undefined, b: { value: number; closed: boolean } | undefined): boolean => (a === undefined || b === undefined ? a === b : a.closed === b.closed && close(a.value, b.value));
      return label.intervals.every((l, i) => sameEnd(answer.intervals[i]!.from, l.from) && sameEnd(answer.intervals[i]!.to, l.to));
    }
    case 'expression': {
      if (answer.kind !== 'expression') return false;
      if (label.form === 'product' && !/\)\s*\*|\*\s*\(|^\w+\s*\*/.test(answer.expression)) return false;
      return sameFunction(answer.expression, label.expression.replace(/\bln\(/g, 'log('), label.variable, label.upToConstant === true);
    }
    case 'limit':
      return answer.kind === 'limit' && (typeof label.value === 'number' ? typeof answer.value === 'number' && close(answer.value, label.value) : answer.value === label.value);
    case 'ratio':
      return answer.kind === 'ratio' && answer.parts.length === label.parts.length && answer.parts.every((p, i) => close(p, label.parts[i]!));
    case 'point':
      return answer.kind === 'point' && answer.coordinates.length === label.coordinates.length && answer.coordinates.every((c, i) => close(c, label.coordinates[i]!));
    case 'no_solution':
    case 'all_values':
      return answer.kind === label.kind;
  }
}

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(b));
}

function sameSet(a: readonly { re: number; im: number }[], b: readonly { re: number; im: number }[]): boolean {
  const unique = (xs: readonly { re: number; im: number }[]) => xs.filter((x, i) => xs.findIndex((y) => close(x.re, y.re) && close(x.im, y.im)) === i);
  const [ua, ub] = [unique(a), unique(b)];
  return ua.length === ub.length && ub.every((x) => ua.some((y) => close(x.re, y.re) && close(x.im, y.im)));
}

/** Value of an expression at x, or undefined where it is not a finite real. */
export function valueAt(expression: string, variable: string, x: number): number | undefined {
  try {
    const v: unknown = evaluate(expression, { [variable]: x });
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function sameFunction(a: string, b: string, variable: string, upToConstant: boolean): boolean {
  const diffs: number[] = [];
  for (const x of SAMPLES) {
    const va = valueAt(a, variable, x);
    const vb = valueAt(b, variable, x);
    if (va === undefined || vb === undefined) continue;
    diffs.push(va - vb);
  }
  if (diffs.length < 4) return false;
  const base = upToConstant ? diffs[0]! : 0;
  return diffs.every((d) => Math.abs(d - base) <= 1e-7 * Math.max(1, Math.abs(d)));
}
