import { CostCapExceededError } from './errors.js';
import type { BudgetReservation, CostBudget } from './port.js';

export type { BudgetReservation };

/**
 * The spending limit of one run. A call reserves its worst-case cost before it is sent (refused with
 * `CostCapExceededError` when the reservation does not fit), then settles at its actual cost, which
 * releases the rest. Concurrent calls of a run therefore cannot overshoot the cap together.
 */
export class RunBudget implements CostBudget {
  private spent: number;
  private readonly reservations = new Map<number, number>();
  private nextId = 1;

  constructor(
    readonly runId: string,
    readonly capUsd: number,
    /** What the run already spent before this process saw it (e.g. from the saga's data). */
    alreadySpentUsd = 0,
  ) {
    if (!(capUsd >= 0)) throw new Error(`cost cap must be >= 0, got ${capUsd}`);
    this.spent = alreadySpentUsd;
  }

  get spentUsd(): number {
    return this.spent;
  }

  get reservedUsd(): number {
    let total = 0;
    for (const amount of this.reservations.values()) total += amount;
    return total;
  }

  get remainingUsd(): number {
    return Math.max(0, this.capUsd - this.spent - this.reservedUsd);
  }

  /** Reserves `amountUsd` or throws `CostCapExceededError` without reserving anything. */
  reserve(amountUsd: number, model: string): BudgetReservation {
    const committed = this.spent + this.reservedUsd;
    // A tiny tolerance so that float noise does not refuse a call that fits exactly.
    if (committed + amountUsd > this.capUsd + 1e-12) {
      throw new CostCapExceededError(this.runId, this.capUsd, committed, amountUsd, model);
    }
    const id = this.nextId++;
    this.reservations.set(id, amountUsd);
    return { id, amountUsd };
  }

  /** Replaces the reservation by the actual cost (0 for a call that failed before any billing). */
  settle(reservation: BudgetReservation, actualUsd: number): void {
    if (!this.reservations.delete(reservation.id)) return;
    this.spent += actualUsd;
  }
}

/** Budgets by run id, for a service that handles many runs; drop a run's budget when it ends. */
export class CostBudgets {
  private readonly budgets = new Map<string, RunBudget>();

  forRun(runId: string, capUsd: number, alreadySpentUsd = 0): RunBudget {
    let budget = this.budgets.get(runId);
    if (budget === undefined) {
      budget = new RunBudget(runId, capUsd, alreadySpentUsd);
      this.budgets.set(runId, budget);
    }
    return budget;
  }

  get(runId: string): RunBudget | undefined {
    return this.budgets.get(runId);
  }

  release(runId: string): void {
    this.budgets.delete(runId);
  }
}
