/**
 * What the saga store has committed so far in this process: transactions (one per applied batch)
 * and the inputs they applied. The message budget spec reads them per saga step and `/metrics`
 * exports them. Plain counters on the hot path; never reset.
 */
export const sagaStoreCounters = {
  commits: 0,
  inputs: 0,
  /** Batches decided from known runs and committed in one round trip. */
  decidedFromMemory: 0,
  /** Batches decided from known runs whose guard found the knowledge stale (another replica moved a run; a redelivery): decided again under lock. */
  staleDecisions: 0,
  /**
   * Round trips to PostgreSQL of the batches: the write sent with its COMMIT is one, and each read the
   * locking path waits for (inbox and run locks, fired timers, key claims, a holder's waiters) one more.
   * A batch decided from memory takes one (two when its guard fails and it is decided again under lock: 1 + the locking path's).
   */
  roundTrips: 0,
};
