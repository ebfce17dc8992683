import type { RunRecord } from '../records.js';

/**
 * Runs as this process last committed (or locked and read) them, newest last, at most `capacity`.
 * The store decides a batch from them without reading the runs first; the batch's write then
 * commits only if every run is still at the version decided from (see SagaStore), so an entry made
 * stale by another replica costs a retry on the locking path, never a wrong decision.
 */
export class KnownRuns {
  private readonly runs = new Map<string, RunRecord>();

  /**
   * 1,024 runs: above the runs in flight at the benches' loads (64 at saga c=64, ~60 on the hit path at
   * 100/s), and a bounded share of memory even at tens of KB of run data each (the coordinator's
   * memory target is 150 MB). A run pushed out only costs its next batch the locking path.
   */
  constructor(private readonly capacity = 1_024) {}

  get size(): number {
    return this.runs.size;
  }

  get(runId: string): RunRecord | undefined {
    return this.runs.get(runId);
  }

  /** Remembers `run` as committed; a finished run is forgotten (late inputs for it take the locking path). */
  remember(run: RunRecord, finished: boolean): void {
    this.runs.delete(run.id);
    if (finished) return;
    this.runs.set(run.id, run);
    if (this.runs.size > this.capacity) {
      const oldest = this.runs.keys().next();
      if (oldest.done !== true) this.runs.delete(oldest.value);
    }
  }

  forget(runId: string): void {
    this.runs.delete(runId);
  }
}
