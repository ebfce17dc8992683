import { DEFAULT_POLICY_CONFIG, type ExecutionPolicy, LOCAL_MODEL, type PolicyConfig } from './execution-policy.js';
import { mergePolicyConfig, PolicyEngine, policyConfigFromEnv, tightenForSensitiveContent } from './policy-engine.js';

const engine = new PolicyEngine();
const WF = 'retrieve_or_generate';

describe('PolicyEngine.getPolicy(workflowType, userId, subscriptionTier, contentSensitivity)', () => {
  describe('with the default config', () => {
    it('gives the spec defaults for the pro tier: threshold 0.85, the per-method bars (1.0, 0.95, 0.99, offset 0.02), async video, the local model', () => {
      expect(engine.getPolicy(WF, 'u', 'pro', 'standard')).toEqual({
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
        run_deadline_ms: 1_800_000,
      });
    });

    it.each([
      ['free', { cost_cap_usd: 0.1, retry_max: 3, video_generation: 'async' }],
      ['pro', { cost_cap_usd: 0.5, retry_max: 3, video_generation: 'async' }],
      ['enterprise', { cost_cap_usd: 2, retry_max: 5, video_generation: 'sync' }],
    ] as const)('differs per tier (%s)', (tier, expected) => {
      expect(engine.getPolicy(WF, 'u', tier, 'standard')).toMatchObject({ ...expected, retrieval_threshold: 0.85 });
    });

    it.each(['free', 'pro', 'enterprise'] as const)('is stricter for sensitive content (%s): threshold 0.95, no video', (tier) => {
      const standard = engine.getPolicy(WF, 'u', tier, 'standard');
      expect(engine.getPolicy(WF, 'u', tier, 'sensitive')).toEqual({ ...standard, retrieval_threshold: 0.95, video_generation: 'skip' });
    });
  });

  describe('with overrides', () => {
    const config: PolicyConfig = mergePolicyConfig(DEFAULT_POLICY_CONFIG, {
      workflows: { [WF]: { retrieval_threshold: 0.88, retry_max: 2 } },
      users: {
        alice: { primary_model: 'anthropic/claude-sonnet-4-5', fallback_models: ['openai/gpt-4.1-mini', LOCAL_MODEL], retrieval_threshold: 0.8 },
        bob: { retrieval_threshold: 0.99, cost_cap_usd: 10, video_generation: 'sync' },
      },
    });
    const withOverrides = new PolicyEngine(config);

    it('applies a per-workflow override under the tier and the user', () => {
      expect(withOverrides.getPolicy(WF, 'carol', 'free', 'standard')).toMatchObject({ retrieval_threshold: 0.88, retry_max: 2, cost_cap_usd: 0.1 });
      expect(withOverrides.getPolicy(WF, 'carol', 'enterprise', 'standard')).toMatchObject({ retrieval_threshold: 0.88, retry_max: 5 });
      expect(withOverrides.getPolicy('research', 'carol', 'free', 'standard')).toMatchObject({ retrieval_threshold: 0.85, retry_max: 3 });
    });

    it("applies the user's override last among the standard layers", () => {
      expect(withOverrides.getPolicy(WF, 'alice', 'free', 'standard')).toEqual({
        retrieval_threshold: 0.8,
        exact_phash_threshold: 1.0,
        near_duplicate_threshold: 0.95,
        text_exact_threshold: 0.99,
        hybrid_threshold_offset: 0.02,
        video_generation: 'async',
        retry_max: 2,
        cost_cap_usd: 0.1,
        primary_model: 'anthropic/claude-sonnet-4-5',
        fallback_models: ['openai/gpt-4.1-mini', LOCAL_MODEL],
        run_deadline_ms: 1_800_000,
      });
    });

    it('tightens the per-method bars for sensitive content only upwards (offset downwards)', () => {
      const strict = new PolicyEngine(mergePolicyConfig(DEFAULT_POLICY_CONFIG, { sensitive: { near_duplicate_threshold: 0.98, hybrid_threshold_offset: 0 }, users: { dan: { text_exact_threshold: 1 } } }));
      expect(strict.getPolicy(WF, 'dan', 'pro', 'sensitive')).toMatchObject({ near_duplicate_threshold: 0.98, hybrid_threshold_offset: 0, text_exact_threshold: 1, exact_phash_threshold: 1 });
      expect(strict.getPolicy(WF, 'dan', 'pro', 'standard')).toMatchObject({ near_duplicate_threshold: 0.95, hybrid_threshold_offset: 0.02 });
    });

    it('never lets a user override loosen the sensitive-content variant', () => {
      expect(withOverrides.getPolicy(WF, 'alice', 'pro', 'sensitive')).toMatchObject({ retrieval_threshold: 0.95, video_generation: 'skip' });
      // ... but a stricter user setting survives it.
      expect(withOverrides.getPolicy(WF, 'bob', 'pro', 'sensitive')).toMatchObject({ retrieval_threshold: 0.99, video_generation: 'skip', cost_cap_usd: 10 });
    });

    it('ignores user ids that only exist on Object.prototype', () => {
      expect(withOverrides.getPolicy(WF, 'constructor', 'pro', 'standard')).toEqual(withOverrides.getPolicy(WF, 'nobody', 'pro', 'standard'));
      expect(withOverrides.getPolicy('toString', 'nobody', 'pro', 'standard')).toMatchObject({ retrieval_threshold: 0.85 });
    });

    it('is pure: the same arguments give equal policies, and a returned policy shares nothing with the config', () => {
      const a = withOverrides.getPolicy(WF, 'alice', 'pro', 'standard');
      a.fallback_models.push('mutated');
      expect(withOverrides.getPolicy(WF, 'alice', 'pro', 'standard').fallback_models).toEqual(['openai/gpt-4.1-mini', LOCAL_MODEL]);
      expect(config.users['alice']?.fallback_models).toEqual(['openai/gpt-4.1-mini', LOCAL_MODEL]);
    });
  });

  describe('tightenForSensitiveContent', () => {
    const base: ExecutionPolicy = { ...DEFAULT_POLICY_CONFIG.defaults, video_generation: 'sync', retry_max: 4, cost_cap_usd: 1 };

    it('takes the higher maths-signature threshold, and sets none when neither layer does', () => {
      expect(tightenForSensitiveContent({ ...base, maths_signature_threshold: 0.9 }, { maths_signature_threshold: 0.95 }).maths_signature_threshold).toBe(0.95);
      expect(tightenForSensitiveContent({ ...base, maths_signature_threshold: 0.9 }, { maths_signature_threshold: 0.8 }).maths_signature_threshold).toBe(0.9);
      expect(tightenForSensitiveContent(base, {})).not.toHaveProperty('maths_signature_threshold');
    });

    it('takes the higher threshold, the lower cap and retries, the stricter video mode, and its own models', () => {
      expect(tightenForSensitiveContent(base, { retrieval_threshold: 0.9, cost_cap_usd: 0.2, retry_max: 1, video_generation: 'async', primary_model: 'onprem/llama' })).toEqual({
        ...base,
        retrieval_threshold: 0.9,
        cost_cap_usd: 0.2,
        retry_max: 1,
        video_generation: 'async',
        primary_model: 'onprem/llama',
      });
    });

    it('cannot loosen anything', () => {
      const strict: ExecutionPolicy = { ...base, retrieval_threshold: 0.97, video_generation: 'skip', retry_max: 0, cost_cap_usd: 0.05 };
      expect(tightenForSensitiveContent(strict, { retrieval_threshold: 0.5, video_generation: 'sync', retry_max: 9, cost_cap_usd: 100 })).toEqual(strict);
    });

    it('changes nothing with an empty layer', () => {
      expect(tightenForSensitiveContent(base, {})).toEqual(base);
    });
  });
});

describe('policyConfigFromEnv', () => {
  it('is the default config with nothing set', () => {
    expect(policyConfigFromEnv({})).toEqual(DEFAULT_POLICY_CONFIG);
  });

  it("takes the providers' model settings as the default models", () => {
    const config = policyConfigFromEnv({ OPENPAW_LLM_MODEL: 'anthropic/claude-sonnet-4-5', OPENPAW_LLM_FALLBACK_MODELS: 'openai/gpt-4.1-mini, local/deterministic,' });
    expect(config.defaults).toMatchObject({ primary_model: 'anthropic/claude-sonnet-4-5', fallback_models: ['openai/gpt-4.1-mini', 'local/deterministic'] });
  });

  it('applies OPENPAW_POLICY_JSON field by field over the defaults', () => {
    const config = policyConfigFromEnv({
      OPENPAW_POLICY_JSON: JSON.stringify({
        defaults: { retrieval_threshold: 0.9 },
        tiers: { free: { video_generation: 'skip' } },
        sensitive: { retrieval_threshold: 0.98 },
        users: { alice: { retry_max: 1 } },
      }),
    });
    expect(config.defaults).toEqual({ ...DEFAULT_POLICY_CONFIG.defaults, retrieval_threshold: 0.9 });
    expect(config.tiers.free).toEqual({ cost_cap_usd: 0.1, video_generation: 'skip' });
    expect(config.tiers.enterprise).toEqual(DEFAULT_POLICY_CONFIG.tiers.enterprise);
    expect(config.sensitive).toEqual({ retrieval_threshold: 0.98, video_generation: 'skip' });
    const policy = new PolicyEngine(config).getPolicy(WF, 'alice', 'free', 'standard');
    expect(policy).toMatchObject({ retrieval_threshold: 0.9, video_generation: 'skip', retry_max: 1 });
  });

  it.each([
    ['not JSON', '{threshold: 1', /not valid JSON/],
    ['a threshold above 1', JSON.stringify({ defaults: { retrieval_threshold: 1.5 } }), /retrieval_threshold/],
    ['an unknown video mode', JSON.stringify({ tiers: { pro: { video_generation: 'later' } } }), /video_generation/],
    ['an unknown tier', JSON.stringify({ tiers: { platinum: {} } }), /platinum/],
    ['an unknown policy field', JSON.stringify({ users: { alice: { retrieval_treshold: 0.9 } } }), /retrieval_treshold/],
    ['a negative retry_max', JSON.stringify({ defaults: { retry_max: -1 } }), /retry_max/],
    ['an empty model', JSON.stringify({ defaults: { primary_model: '' } }), /primary_model/],
  ])('refuses %s with a readable reason', (_, json, reason) => {
    expect(() => policyConfigFromEnv({ OPENPAW_POLICY_JSON: json })).toThrow(reason);
  });
});
