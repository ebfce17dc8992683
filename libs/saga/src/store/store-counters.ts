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
};
