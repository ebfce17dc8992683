import type { MessageData, SearchSolutions } from '@openpaw/contracts';
import { DEFAULT_POLICY_CONFIG, type ExecutionPolicy } from '../policy/index.js';
import type { Candidate } from './retrieve-or-generate.data.js';

/** Spec: after a failed solve, a top candidate with confidence > 0.70 is served as a near-miss. */
export const NEAR_MISS_MIN_CONFIDENCE = 0.7;

type MethodThresholds = NonNullable<MessageData<typeof SearchSolutions>['methodThresholds']>;

/** A run's stored policy, with the per-method bars of runs started before those fields existed filled from the defaults. */
function withMethodBars(stored: ExecutionPolicy): ExecutionPolicy {
  const { defaults } = DEFAULT_POLICY_CONFIG;
  // The fields are typed as required, but a policy stored in a run before they existed lacks them.
  const partial = stored as Partial<ExecutionPolicy> & ExecutionPolicy;
  return {
    ...stored,
    exact_phash_threshold: partial.exact_phash_threshold ?? defaults.exact_phash_threshold,
    near_duplicate_threshold: partial.near_duplicate_threshold ?? defaults.near_duplicate_threshold,
    text_exact_threshold: partial.text_exact_threshold ?? defaults.text_exact_threshold,
    hybrid_threshold_offset: partial.hybrid_threshold_offset ?? defaults.hybrid_threshold_offset,
  };
}

/** The policy's per-method bars (spec 01 "Retrieval Confidence Thresholds (from ExecutionPolicy)"), as SearchSolutions carries them. */
export function methodThresholdsOf(stored: ExecutionPolicy): MethodThresholds {
  const policy = withMethodBars(stored);
  return {
    exactPhash: policy.exact_phash_threshold,
    nearDuplicate: policy.near_duplicate_threshold,
    exactText: policy.text_exact_threshold,
    hybridOffset: policy.hybrid_threshold_offset,
  };
}

/**
 * `policy.maths_signature_threshold`, the maths-signature stage's bar; a policy without one holds maths
 * hits to `retrieval_threshold`. Sent with SearchSolutions and applied to its answer, so both sides use one bar.
 */
export function mathsSignatureBarOf(stored: ExecutionPolicy): number {
  return stored.maths_signature_threshold ?? stored.retrieval_threshold;
}

/** The confidence a candidate needs to be a hit, by the method that found it (the same bars retrieval applies). */
export function acceptanceBar(method: Candidate['method'], stored: ExecutionPolicy): number {
  const policy = withMethodBars(stored);
  const threshold = policy.retrieval_threshold;
  switch (method) {
    case 'exact_image':
    case 'exact_phash':
      return policy.exact_phash_threshold;
    case 'near_duplicate':
      return policy.near_duplicate_threshold;
    case 'text_exact':
      return policy.text_exact_threshold;
    case 'hybrid':
      return threshold - policy.hybrid_threshold_offset;
    case 'maths_signature':
      return mathsSignatureBarOf(policy);
    case 'vector':
      return threshold;
  }
}
