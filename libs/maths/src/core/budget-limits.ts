// The budget's limits, apart from the engine (no mathjs here): the bounded engine's callers need them
// on a thread that never loads the engine.

/**
 * How much work one solve may do. Every loop or library call whose cost grows with the input spends
 * steps first (a trial division, a term of an expansion); the deadline is checked at each spend and
 * between solvers. Either one running out refuses the problem as "too much work", never an answer
 * from the part that ran.
 */
export interface MathsBudget {
  /** Steps one solve may spend (about 0.1 µs of work each on the engine's loops). */
  readonly steps: number;
  /** Wall-clock milliseconds one solve may run, checked at every spend. */
  readonly millis: number;
}

/** ~200 ms of trial division; an antiderivative of a polynomial up to degree ~35. */
export const DEFAULT_MATHS_BUDGET: MathsBudget = { steps: 2_000_000, millis: 1_000 };

