import { parseJsonSetting, validSetting } from '@openpaw/platform';
import { z } from 'zod';
import {
  type ContentSensitivity,
  DEFAULT_POLICY_CONFIG,
  type ExecutionPolicy,
  type PolicyConfig,
  policyConfigSchema,
  type PolicyOverride,
  policyOverrideSchema,
  type SubscriptionTier,
  type VideoGeneration,
} from './execution-policy.js';

/** From the most to the least restrictive. */
const VIDEO_STRICTNESS: Readonly<Record<VideoGeneration, number>> = { skip: 0, async: 1, sync: 2 };

/**
 * The sensitive-content layer only tightens: a higher retrieval (and maths-signature) threshold wins, a lower cost cap and
 * fewer retries win, video can only move towards `skip`; models, when it names them, replace the
 * others (e.g. an approved on-premises model).
 */
export function tightenForSensitiveContent(policy: ExecutionPolicy, sensitive: PolicyOverride): ExecutionPolicy {
  const video = sensitive.video_generation;
  const maths = [policy.maths_signature_threshold, sensitive.maths_signature_threshold].filter((t) => t !== undefined);
  return {
    retrieval_threshold: Math.max(policy.retrieval_threshold, sensitive.retrieval_threshold ?? 0),
    exact_phash_threshold: Math.max(policy.exact_phash_threshold, sensitive.exact_phash_threshold ?? 0),
    near_duplicate_threshold: Math.max(policy.near_duplicate_threshold, sensitive.near_duplicate_threshold ?? 0),
    text_exact_threshold: Math.max(policy.text_exact_threshold, sensitive.text_exact_threshold ?? 0),
    hybrid_threshold_offset: Math.min(policy.hybrid_threshold_offset, sensitive.hybrid_threshold_offset ?? policy.hybrid_threshold_offset),
    ...(maths.length === 0 ? {} : { maths_signature_threshold: Math.max(...maths) }),
    video_generation: video !== undefined && VIDEO_STRICTNESS[video] < VIDEO_STRICTNESS[policy.video_generation] ? video : policy.video_generation,
    retry_max: Math.min(policy.retry_max, sensitive.retry_max ?? policy.retry_max),
    cost_cap_usd: Math.min(policy.cost_cap_usd, sensitive.cost_cap_usd ?? policy.cost_cap_usd),
    primary_model: sensitive.primary_model ?? policy.primary_model,
    fallback_models: [...(sensitive.fallback_models ?? policy.fallback_models)],
    run_deadline_ms: Math.min(policy.run_deadline_ms, sensitive.run_deadline_ms ?? policy.run_deadline_ms),
  };
}

/** Resolves the ExecutionPolicy of a run. Pure: the same config and arguments give the same policy. */
export class PolicyEngine {
  constructor(private readonly config: PolicyConfig = DEFAULT_POLICY_CONFIG) {}

  getPolicy(workflowType: string, userId: string, subscriptionTier: SubscriptionTier, contentSensitivity: ContentSensitivity): ExecutionPolicy {
    const { defaults, workflows, tiers, users, sensitive } = this.config;
    // Own-property lookups only: a user id such as "constructor" must not reach Object.prototype.
    const layered: ExecutionPolicy = {
      ...defaults,
      ...own(workflows, workflowType),
      ...tiers[subscriptionTier],
      ...own(users, userId),
    };
    const policy = { ...layered, fallback_models: [...layered.fallback_models] };
    switch (contentSensitivity) {
      case 'standard':
        return policy;
      case 'sensitive':
        return tightenForSensitiveContent(policy, sensitive);
    }
  }
}

function own(record: Readonly<Record<string, PolicyOverride>>, key: string): PolicyOverride {
  return Object.hasOwn(record, key) ? (record[key] ?? {}) : {};
}

/** What OPENPAW_POLICY_JSON may contain: any part of the config; what it names replaces the default. */
export const policyConfigPatchSchema = z.strictObject({
  defaults: policyOverrideSchema.optional(),
  tiers: z
    .strictObject({ free: policyOverrideSchema.optional(), pro: policyOverrideSchema.optional(), enterprise: policyOverrideSchema.optional() })
    .optional(),
  sensitive: policyOverrideSchema.optional(),
  workflows: z.record(z.string().min(1), policyOverrideSchema).optional(),
  users: z.record(z.string().min(1), policyOverrideSchema).optional(),
});
export type PolicyConfigPatch = z.infer<typeof policyConfigPatchSchema>;

/** Applies a patch field by field (per tier, per workflow, per user) and validates the result. */
export function mergePolicyConfig(base: PolicyConfig, patch: PolicyConfigPatch): PolicyConfig {
  return policyConfigSchema.parse(layer(base, patch));
}

function layer(base: PolicyConfig, patch: PolicyConfigPatch): PolicyConfig {
  return {
    defaults: { ...base.defaults, ...patch.defaults },
    tiers: {
      free: { ...base.tiers.free, ...patch.tiers?.free },
      pro: { ...base.tiers.pro, ...patch.tiers?.pro },
      enterprise: { ...base.tiers.enterprise, ...patch.tiers?.enterprise },
    },
    sensitive: { ...base.sensitive, ...patch.sensitive },
    workflows: mergeRecords(base.workflows, patch.workflows),
    users: mergeRecords(base.users, patch.users),
  };
}

function mergeRecords(
  base: Readonly<Record<string, PolicyOverride>>,
  patch: Readonly<Record<string, PolicyOverride>> | undefined,
): Record<string, PolicyOverride> {
  const out: Record<string, PolicyOverride> = { ...base };
  for (const [key, value] of Object.entries(patch ?? {})) out[key] = { ...own(base, key), ...value };
  return out;
}

/**
 * The policy config from the environment, on top of DEFAULT_POLICY_CONFIG:
 * - `OPENPAW_LLM_MODEL` / `OPENPAW_LLM_FALLBACK_MODELS` (comma-separated), the providers' model
 *   settings, become the default primary and fallback models, so the policy names the models the
 *   solve service is configured with;
 * - `OPENPAW_POLICY_JSON`, a `PolicyConfigPatch`, is applied last.
 * Throws with a readable reason on invalid JSON or an invalid config (the coordinator refuses to start).
 */
export function policyConfigFromEnv(env: NodeJS.ProcessEnv): PolicyConfig {
  const models: PolicyOverride = {};
  const primary = env['OPENPAW_LLM_MODEL']?.trim();
  if (primary !== undefined && primary !== '') models.primary_model = primary;
  const fallbacks = env['OPENPAW_LLM_FALLBACK_MODELS'];
  if (fallbacks !== undefined) models.fallback_models = fallbacks.split(',').map((m) => m.trim()).filter((m) => m !== '');
  const withModels = policyConfigSchema.safeParse(layer(DEFAULT_POLICY_CONFIG, { defaults: models }));
  if (!withModels.success) throw new Error(`OPENPAW_LLM_MODEL / OPENPAW_LLM_FALLBACK_MODELS are invalid:\n${z.prettifyError(withModels.error)}`);
  const patch = parseJsonSetting('OPENPAW_POLICY_JSON', env['OPENPAW_POLICY_JSON'], policyConfigPatchSchema);
  return patch === undefined ? withModels.data : validSetting('OPENPAW_POLICY_JSON', policyConfigSchema, layer(withModels.data, patch));
}
