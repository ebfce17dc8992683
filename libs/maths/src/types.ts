/** What a problem asks for, read from its wording. */
export type Intent = 'solve' | 'evaluate' | 'simplify' | 'factor' | 'expand' | 'differentiate' | 'integrate' | 'limit' | 'convert';

/** The engine's scope: each category has its own step generator. */
export const CATEGORIES = [
  'arithmetic',
  'linear_equation',
  'quadratic_equation',
  'linear_system',
  'linear_inequality',
  'polynomial',
  'rational_expression',
  'exponent_log',
  'percent_ratio',
  'speed_distance_time',
  'interest',
  'geometry',
  'unit_conversion',
  'derivative',
  'integral',
  'limit',
  'surd',
  'conversion',
  'coordinate_geometry',
  'statistics',
  'probability',
  'absolute_value',
  'right_triangle',
  'rearrangement',
] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Step {
  readonly title: string;
  /** Prose with mathematics in LaTeX between `\(` and `\)` (rendered to MathML by the solution page). */
  readonly detail: string;
}

export interface Complex {
  readonly re: number;
  readonly im: number;
  /** A rational root exactly ("9007199254740986/3"), where `re` is only the nearest double. */
  readonly exact?: string;
}

export type Relation = '<' | '<=' | '>' | '>=';
/** A relation between two sides, equality included. */
export type RelationOp = '=' | Relation;

/** One end of an interval: exactly ("7/3") and as the nearest double; `closed` when the end belongs to the set. */
export interface IntervalEnd {
  readonly value: number;
  readonly exact: string;
  readonly closed: boolean;
}

/** An interval of the real line; an absent end is unbounded (−∞ or +∞). One value alone is [a, a]. */
export interface Interval {
  readonly from?: IntervalEnd;
  readonly to?: IntervalEnd;
}

/** The final answer in a form a checker can compare (the text form is `finalAnswer`). */
export type Answer =
  /** `exact`: a rational value exactly ("22/7"), where `value` is only the nearest double. */
  | { readonly kind: 'number'; readonly value: number; readonly unit?: string; readonly exact?: string }
  | { readonly kind: 'roots'; readonly variable: string; readonly roots: readonly Complex[] }
  | { readonly kind: 'no_solution' }
  | { readonly kind: 'all_values'; readonly variable: string }
  /** `exact`: each value exactly ("1/3"), where `values` holds only the nearest doubles. */
  | { readonly kind: 'assignment'; readonly values: Readonly<Record<string, number>>; readonly exact?: Readonly<Record<string, string>> }
  /** `exactBound`: the bound exactly, where `bound` is only the nearest double. */
  | { readonly kind: 'inequality'; readonly variable: string; readonly relation: Relation; readonly bound: number; readonly exactBound?: string }
  /**
   * The values of one unknown that satisfy it, as a union of intervals ("|x − 3| > 5": x < −2 or x > 8):
   * disjoint, in increasing order, no two touching. Never empty (that is `no_solution`) nor the whole line
   * (`all_values`); a finite set of values is one-point intervals.
   */
  | { readonly kind: 'interval_set'; readonly variable: string; readonly intervals: readonly Interval[] }
  /** An expression in mathjs syntax; `upToConstant` for antiderivatives (+ C). */
  | {
      readonly kind: 'expression';
      readonly expression: string;
      readonly variables: readonly string[];
      readonly upToConstant: boolean;
      /** The letter the expression is a formula for ("make t the subject" → t), when one was asked for. */
      readonly subject?: string;
    }
  | { readonly kind: 'limit'; readonly value: number | 'infinity' | '-infinity' | 'does_not_exist' }
  | { readonly kind: 'ratio'; readonly parts: readonly number[] }
  /** A point of the plane (a midpoint), coordinates in order. */
  | { readonly kind: 'point'; readonly coordinates: readonly number[] }
  | { readonly kind: 'truth'; readonly value: boolean };

export interface EngineSolution {
  readonly solved: true;
  readonly category: Category;
  readonly intent: Intent;
  /** The mathematics the engine worked on, as it read it from the text. */
  readonly problem: string;
  readonly steps: readonly Step[];
  /** The final answer as a student writes it: `x = 2 or x = 3`, `60 km/h`, `25π cm² ≈ 78.54 cm²`. */
  readonly finalAnswer: string;
  readonly answer: Answer;
  /** How the answer was verified before it was returned (substitution, differentiation, ...). */
  readonly verification: string;
}

export interface EngineDecline {
  readonly solved: false;
  /** True when the problem is of a kind the engine handles but this instance failed a check or a limit. */
  readonly inScope: boolean;
  readonly category?: Category;
  readonly reason: string;
}

export type EngineOutcome = EngineSolution | EngineDecline;

/** What a solver says about a problem: solved, declined with a reason, or not its kind (undefined). */
export type SolverResult = EngineSolution | EngineDecline | undefined;
