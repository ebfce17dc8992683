import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { z } from 'zod';
import { DEFAULT_REFUTATION_TTL_MS } from './domain/evidence-cache.js';
import { DEFAULT_EVIDENCE_CACHE_TTL_MS, DEFAULT_RUN_MEMORY_TTL_MS } from './memory/kv-keys.js';

/** The visual-search service's settings, from the environment (validated at start). */
export interface VisualSearchSettings {
  /**
   * The environment as read once at start, for the provider factories (`createVisualProvidersFromEnv`,
   * `createLlmFromEnv` of `@openpaw/providers`, each validating its own variables): nothing reads `process.env` later.
   */
  readonly providerEnv: Readonly<Record<string, string | undefined>>;
  /**
   * NATS servers, stream provisioning, the command lanes this process consumes and their concurrency
   * (`OPENPAW_NATS_URL`, `OPENPAW_STREAMS_*`, `OPENPAW_LANES`, `OPENPAW_LANE_CONCURRENCY`).
   */
  readonly messaging: ServiceMessagingSettings;
  /** How long a run's memory (frontiers, seen people) lives in its JetStream KV bucket. */
  readonly runMemoryTtlMs: number;
  /** How long a verified edge's evidence stays cached in its JetStream KV bucket (the bucket's TTL). */
  readonly evidenceCacheTtlMs: number;
  /** How long a cached refutation is believed: shorter than a confirmation. */
  readonly refutationTtlMs: number;
  /** Image hosts on 127.0.0.1 are fetched too: set by the test entrypoint (`testing/loopback-main.ts`) only, never from the environment. */
  readonly allowLoopbackImageHosts?: boolean;
}

/** Milliseconds, a positive integer; unset or blank: `fallback`. */
function positiveMs(fallback: number) {
  return z
    .string()
    .optional()
    .transform((raw) => (raw === undefined || raw.trim() === '' ? fallback : Number(raw)))
    .pipe(z.int('a positive integer (milliseconds)').positive('a positive integer (milliseconds)'));
}

const envSchema = z.object({
  OPENPAW_VISUAL_RUN_TTL_MS: positiveMs(DEFAULT_RUN_MEMORY_TTL_MS),
  OPENPAW_VISUAL_EVIDENCE_TTL_MS: positiveMs(DEFAULT_EVIDENCE_CACHE_TTL_MS),
  OPENPAW_VISUAL_REFUTATION_TTL_MS: positiveMs(DEFAULT_REFUTATION_TTL_MS),
}).refine((e) => e.OPENPAW_VISUAL_REFUTATION_TTL_MS < e.OPENPAW_VISUAL_EVIDENCE_TTL_MS, {
  path: ['OPENPAW_VISUAL_REFUTATION_TTL_MS'],
  message: 'a refutation must live shorter than a confirmation (OPENPAW_VISUAL_EVIDENCE_TTL_MS)',
});

/** Reads the settings; throws naming every invalid variable. */
export function visualSearchSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): VisualSearchSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid visual-search configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  return {
    providerEnv: Object.freeze({ ...env }),
    messaging: serviceMessagingSettingsFromEnv(env),
    runMemoryTtlMs: e.OPENPAW_VISUAL_RUN_TTL_MS,
    evidenceCacheTtlMs: e.OPENPAW_VISUAL_EVIDENCE_TTL_MS,
    refutationTtlMs: e.OPENPAW_VISUAL_REFUTATION_TTL_MS,
  };
}
