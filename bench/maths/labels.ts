/**
 * What a bench problem's answer is, written by the bench (never computed by the engine under test):
 * from the parameters the problem was built from, from hand-written results, or from textbook
 * formulas evaluated in plain floating point.
 */
export type Label =
  | { readonly kind: 'roots'; readonly roots: readonly { readonly re: number; readonly im: number }[] }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'assignment'; readonly values: Readonly<Record<string, number>> }
  | { readonly kind: 'inequality'; readonly relation: '<' | '<=' | '>' | '>='; readonly bound: number }
  /** A union of disjoint intervals in increasing order; an absent end is unbounded. */
  | { readonly kind: 'interval_set'; readonly intervals: readonly LabelInterval[] }
  /** Equal as functions of `variable` (up to a constant for antiderivatives); `form` checks the written shape. */
  | { readonly kind: 'expression'; readonly expression: string; readonly variable: string; readonly upToConstant?: boolean; readonly form?: 'product' }
  | { readonly kind: 'limit'; readonly value: number | 'infinity' | '-infinity' | 'does_not_exist' }
  | { readonly kind: 'ratio'; readonly parts: readonly number[] }
  | { readonly kind: 'point'; readonly coordinates: readonly number[] }
  | { readonly kind: 'no_solution' }
  | { readonly kind: 'all_values' };

export interface LabelInterval {
  readonly from?: { readonly value: number; readonly closed: boolean };
  readonly to?: { readonly value: number; readonly closed: boolean };
}

export interface BenchProblem {
  readonly category: string;
  readonly text: string;
  /** undefined: outside the engine's scope; it must not claim it. */
  readonly label: Label | undefined;
}

export const real = (...values: number[]): Label => ({ kind: 'roots', roots: values.map((re) => ({ re, im: 0 })) });
export const num = (value: number): Label => ({ kind: 'number', value });
