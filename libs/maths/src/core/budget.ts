// No mathjs here: the readers (`normaliseMaths`, the screen) spend steps too, and the screen is loaded by
// services that never load the engine.
import { DEFAULT_MATHS_BUDGET, type MathsBudget } from './budget-limits.js';

export { DEFAULT_MATHS_BUDGET, type MathsBudget };

/** Thrown by `spend` when the solve's budget is spent; `solveProblem` turns it into a refusal. */
export class TooMuchWork extends Error {}

interface Running {
  readonly budget: MathsBudget;
  readonly deadline: number;
  left: number;
  spentOn?: string;
}

// The engine is synchronous: one solve runs at a time on a thread, so the running budget is the
// innermost `withinBudget` call's.
let running: Running | undefined;

/** Runs `solve` under `budget`; `exhaustedBy` names what spent it, if anything did (even when a solver swallowed the throw). */
export function withinBudget<T>(budget: MathsBudget, solve: () => T): { readonly result?: T; readonly exhaustedBy?: string } {
  const outer = running;
  const mine: Running = { budget, deadline: performance.now() + budget.millis, left: budget.steps };
  running = mine;
  try {
    const result = solve();
    return mine.spentOn === undefined ? { result } : { exhaustedBy: mine.spentOn };
  } catch (error) {
    if (error instanceof TooMuchWork || mine.spentOn !== undefined) return { exhaustedBy: mine.spentOn ?? (error as Error).message };
    throw error;
  } finally {
    running = outer;
  }
}

/**
 * Runs `work` charged to the budget already running (a solve's: its reading is part of its work), or,
 * when none runs, under `budget` of its own (a reading for the maths signature).
 */
export function withinRunningBudget<T>(budget: MathsBudget, work: () => T): { readonly result?: T; readonly exhaustedBy?: string } {
  return running === undefined ? withinBudget(budget, work) : { result: work() };
}

/** Spends `steps` on `what`, or throws `TooMuchWork` when the steps or the time are used up. Free outside `withinBudget`. */
export function spend(steps: number, what: string): void {
  if (running === undefined) return;
  running.left -= steps;
  const over = running.left < 0 ? `${what} needs more than the ${running.budget.steps} steps a solve may take` : performance.now() > running.deadline ? `${what} ran past the ${running.budget.millis} ms a solve may take` : undefined;
  if (over === undefined) return;
  running.spentOn ??= over;
  throw new TooMuchWork(over);
}
