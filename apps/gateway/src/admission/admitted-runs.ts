import type { Tier } from './admission-limits.js';

export interface Admitted {
  readonly userId: string;
  readonly tier: Tier;
  readonly at: number;
  /** Of a problem image ingestion has not read yet (0 for runs without one). */
  readonly megapixels: number;
}

/**
 * The runs this gateway admitted and has not yet seen end, by run id and by user: a start reads only
 * its own user's (bounded by the tier's in-flight limit), never every run admitted here, so what a
 * start costs does not grow with the load the gateway carries.
 */
export class AdmittedRuns {
  readonly #byRun = new Map<string, Admitted>();
  readonly #byUser = new Map<string, Set<string>>();
  /**
   * Runs the projection was seen to show (not ended): from then on its counters count them, so a
   * start no longer asks about them (the shared platform reading still does, to forget ended ones).
   */
  readonly #projected = new Set<string>();
  /** Admissions ever recorded here: a reading notes it, so "admitted since that reading" is a subtraction. */
  #admissions = 0;
  /** The megapixels of every admission recorded here so far (a running sum, like `admissions`). */
  #megapixels = 0;

  get size(): number {
    return this.#byRun.size;
  }

  /** How many admissions were recorded here so far (a counter, never decremented). */
  get admissions(): number {
    return this.#admissions;
  }

  /** The megapixels of every admission recorded here so far (a running sum, never decremented). */
  get megapixels(): number {
    return this.#megapixels;
  }

  add(runId: string, admitted: Admitted): void {
    const previous = this.#byRun.get(runId);
    if (previous !== undefined) this.#byUser.get(previous.userId)?.delete(runId);
    this.#projected.delete(runId);
    this.#byRun.set(runId, admitted);
    let runs = this.#byUser.get(admitted.userId);
    if (runs === undefined) this.#byUser.set(admitted.userId, (runs = new Set()));
    runs.add(runId);
    this.#admissions += 1;
    this.#megapixels += admitted.megapixels;
  }

  get(runId: string): Admitted | undefined {
    return this.#byRun.get(runId);
  }

  delete(runId: string): void {
    const admitted = this.#byRun.get(runId);
    if (admitted === undefined) return;
    this.#byRun.delete(runId);
    this.#projected.delete(runId);
    const runs = this.#byUser.get(admitted.userId);
    runs?.delete(runId);
    if (runs?.size === 0) this.#byUser.delete(admitted.userId);
  }

  /** The run ids admitted here for `userId`. */
  ofUser(userId: string): string[] {
    return [...(this.#byUser.get(userId) ?? [])];
  }

  /** The run ids admitted here for `userId` that the projection was not yet seen to show. */
  unprojectedOfUser(userId: string): string[] {
    return this.ofUser(userId).filter((runId) => !this.#projected.has(runId));
  }

  /** Notes that the projection shows `runId` (not ended). */
  markProjected(runId: string): void {
    if (this.#byRun.has(runId)) this.#projected.add(runId);
  }

  /** Whether the projection was seen to show `runId`. */
  isProjected(runId: string): boolean {
    return this.#projected.has(runId);
  }

  runIds(): string[] {
    return [...this.#byRun.keys()];
  }

  values(): IterableIterator<Admitted> {
    return this.#byRun.values();
  }
}
