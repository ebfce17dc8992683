import { CONTENT_SENSITIVITIES, SUBSCRIPTION_TIERS } from '@openpaw/contracts';
import { z } from 'zod';

/**
 * ExecutionPolicy (spec 01, "Step 0: get policy"): what governs every later decision of a run. Field
 * names are the spec's (`policy.retrieval_threshold`, `policy.video_generation`, ...) because the
 * policy is logged verbatim as the run's first step (`policy_applied`).
 */
export { CONTENT_SENSITIVITIES, SUBSCRIPTION_TIERS };
export type SubscriptionTier = (typeof SUBSCRIPTION_TIERS)[number];

export type ContentSensitivity = (typeof CONTENT_SENSITIVITIES)[number];

export const VIDEO_GENERATION_MODES = ['skip', 'async', 'sync'] as const;
export type VideoGeneration = (typeof VIDEO_GENERATION_MODES)[number];

/** The local default LLM (`@openpaw/providers` LOCAL_MODEL_ID): no account, no network. */
export const LOCAL_MODEL = 'local/deterministic';

export const executionPolicySchema = z.strictObject({
  /** Vector-similarity acceptance bar for a retrieval hit (hybrid re-ranked: this − 0.02). */
  retrieval_threshold: z.number().min(0).max(1),
  /**
   * Bar of the maths-signature retrieval stage (ADR 0007): same canonical maths and intent, confidence
   * 0.97 × the weaker reading's confidence. Optional so policies written before it stay valid; retrieval
   * applies its default (0.85, like `retrieval_threshold`) when a command does not carry it.
   */
  maths_signature_threshold: z.number().min(0).max(1).optional(),
  /** Spec 01 per-method bars: an exact pHash match (1.0; an identical image is held to it too). */
  exact_phash_threshold: z.number().min(0).max(1),
  /** A near-duplicate pHash, Hamming distance < 8 (0.95). */
  near_duplicate_threshold: z.number().min(0).max(1),
  /** The normalised text, exactly (0.99). */
  text_exact_threshold: z.number().min(0).max(1),
  /** Hybrid re-ranked candidates are accepted at `retrieval_threshold` − this (0.02). */
  hybrid_threshold_offset: z.number().min(0).max(0.5),
  /** skip: no video; async: rendered in the background, `video_pending: true`; sync: rendered with priority. */
  video_generation: z.enum(VIDEO_GENERATION_MODES),
  /** Retries after the first try, for INGESTING and GENERATING_SOLUTION (spec's retry table). */
  retry_max: z.int().min(0).max(10),
  /** LLM spend allowed for one attempt of the run, in USD. */
  cost_cap_usd: z.number().positive(),
  primary_model: z.string().min(1),
  /** Used in order by the solve retries after the primary model; the last one repeats when exhausted. */
  fallback_models: z.array(z.string().min(1)).max(10),
  /**
   * Flow control: how long a run may take in all. A step waiting in a busy lane waits (it is never
   * re-sent or failed for being queued); past this deadline the run fails with `deadline_exceeded`.
   */
  run_deadline_ms: z.int().min(1_000).max(7 * 24 * 60 * 60 * 1000),
});
export type ExecutionPolicy = z.infer<typeof executionPolicySchema>;

export const policyOverrideSchema = executionPolicySchema.partial();
export type PolicyOverride = z.infer<typeof policyOverrideSchema>;

/**
 * Where a policy comes from. Resolution, each layer overriding the fields it sets:
 * defaults → workflows[workflowType] → tiers[tier] → users[userId], then, for sensitive content, the
 * `sensitive` layer, which can only tighten (see `tightenForSensitiveContent`).
 */
export const policyConfigSchema = z.strictObject({
  defaults: executionPolicySchema,
  tiers: z.strictObject({ free: policyOverrideSchema, pro: policyOverrideSchema, enterprise: policyOverrideSchema }),
  sensitive: policyOverrideSchema,
  workflows: z.record(z.string().min(1), policyOverrideSchema),
  users: z.record(z.string().min(1), policyOverrideSchema),
});
export type PolicyConfig = z.infer<typeof policyConfigSchema>;

export const DEFAULT_POLICY_CONFIG: PolicyConfig = {
  defaults: {
    retrieval_threshold: 0.85,
    exact_phash_threshold: 1.0,
    near_duplicate_threshold: 0.95,
    text_exact_threshold: 0.99,
    hybrid_threshold_offset: 0.02,
    video_generation: 'async',
    retry_max: 3,
    cost_cap_usd: 0.5,
    primary_model: LOCAL_MODEL,
    fallback_models: [],
    run_deadline_ms: 30 * 60 * 1000,
  },
  tiers: {
    free: { cost_cap_usd: 0.1 },
    pro: {},
    enterprise: { retry_max: 5, cost_cap_usd: 2, video_generation: 'sync' },
  },
  // Sensitive content: a near match must be nearer before someone else's solution is served, and no
  // video is rendered from it.
  sensitive: { retrieval_threshold: 0.95, video_generation: 'skip' },
  workflows: {},
  users: {},
};
