import { KV_BUCKETS } from '@openpaw/messaging';
import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { assertProviderSettings, providerKindsOf } from '@openpaw/providers';
import { z } from 'zod';
import { DEFAULT_REFUTATION_TTL_MS } from './domain/evidence-cache.js';

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
  /**
   * How long a cached refutation is believed: shorter than a confirmation, which lives as long as the
   * evidence bucket's TTL (`KV_BUCKETS`, set by provisioning like the run memory's).
   */
  readonly refutationTtlMs: number;
  /**
   * How long an evidence photo's thumbnail is kept (`OPENPAW_VISUAL_THUMBNAIL_RETENTION_MS`, default 7 days;
   * at least the evidence bucket's TTL, so a cached edge still believed keeps its pictures). Older ones are
   * deleted hourly; a run's view then shows that edge's source page and no picture.
   */
  readonly thumbnailRetentionMs: number;
  /** Image hosts on 127.0.0.1 are fetched too: set by the test entrypoint (`testing/loopback-main.ts`) only, never from the environment. */
  readonly allowLoopbackImageHosts?: boolean;
}

/** Evidence thumbnails are kept a week by default. */
export const DEFAULT_THUMBNAIL_RETENTION_MS = 7 * 24 * 60 * 60_000;

/** Milliseconds, a positive integer; unset or blank: `fallback`. */
function positiveMs(fallback: number) {
  return z
    .string()
    .optional()
    .transform((raw) => (raw === undefined || raw.trim() === '' ? fallback : Number(raw)))
    .pipe(z.int('a positive integer (milliseconds)').positive('a positive integer (milliseconds)'));
}

const envSchema = z.object({
  OPENPAW_VISUAL_REFUTATION_TTL_MS: positiveMs(DEFAULT_REFUTATION_TTL_MS).refine((ms) => ms < KV_BUCKETS.visualEvidenceCache.ttlMs, {
    message: `a refutation must live shorter than a confirmation (the evidence bucket's TTL, ${KV_BUCKETS.visualEvidenceCache.ttlMs} ms)`,
  }),
  OPENPAW_VISUAL_THUMBNAIL_RETENTION_MS: positiveMs(DEFAULT_THUMBNAIL_RETENTION_MS).refine((ms) => ms >= KV_BUCKETS.visualEvidenceCache.ttlMs, {
    message: `thumbnails must be kept at least as long as the cached evidence that shows them (the evidence bucket's TTL, ${KV_BUCKETS.visualEvidenceCache.ttlMs} ms)`,
  }),
});

/** Reads the settings; throws naming every invalid variable. */
export function visualSearchSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): VisualSearchSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid visual-search configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  // The provider factories' own settings, checked before the app is built: a bad value keeps the service not ready, naming it.
  assertProviderSettings(env, providerKindsOf('visual-search'));
  return {
    providerEnv: Object.freeze({ ...env }),
    messaging: serviceMessagingSettingsFromEnv(env),
    refutationTtlMs: e.OPENPAW_VISUAL_REFUTATION_TTL_MS,
    thumbnailRetentionMs: e.OPENPAW_VISUAL_THUMBNAIL_RETENTION_MS,
  };
}
