import { llmConcurrencyFromEnv } from '@openpaw/providers';

/** The providers a research leg or synthesis can call (the extractive `local` researcher included). */
const RESEARCH_PROVIDERS = ['openai', 'anthropic', 'gemini', 'local'] as const;

/**
 * Research legs and syntheses handled at once by one process: the sum of the per-provider call limits
 * (`OPENPAW_LLM_CONCURRENCY`, defaults 16 + 8 + 8 + 4). A leg holds its lane slot for its whole call
 * (up to its cap, an hour) while doing nothing but wait on the provider; with the messaging default
 * (8), eight slow legs would hold back every other run's legs even with provider capacity free (the
 * bench: 150 instant legs queued behind 8 slots, p99 2.8 s of it waiting in the lane). The provider
 * limits stay the bound on model calls; the legs beyond them wait in JetStream, not in the process.
 */
export function researchLaneConcurrency(env: Readonly<Record<string, string | undefined>>): number {
  const { perProvider } = llmConcurrencyFromEnv(env);
  return RESEARCH_PROVIDERS.reduce((sum, provider) => sum + (perProvider?.[provider] ?? 0), 0);
}
