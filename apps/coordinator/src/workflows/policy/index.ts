export * from './execution-policy.js';
export { mergePolicyConfig, PolicyEngine, policyConfigFromEnv, policyConfigPatchSchema, tightenForSensitiveContent, type PolicyConfigPatch } from './policy-engine.js';
