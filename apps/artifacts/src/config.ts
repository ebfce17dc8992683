import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { assertProviderSettings, providerKindsOf } from '@openpaw/providers';
import { z } from 'zod';

/** The artifacts service's settings, from the environment (validated at start). */
export interface ArtifactsSettings {
  /**
   * The environment as read once at start, for the provider factories (`create*FromEnv` of
   * `@openpaw/providers`, each validating its own variables): nothing reads `process.env` later.
   */
  readonly providerEnv: Readonly<Record<string, string | undefined>>;
  /**
   * NATS servers, stream provisioning, the command lanes this process consumes and their concurrency
   * (`OPENPAW_NATS_URL`, `OPENPAW_STREAMS_*`, `OPENPAW_LANES`, `OPENPAW_LANE_CONCURRENCY`).
   */
  readonly messaging: ServiceMessagingSettings;
  readonly databaseUrl: string;
  readonly poolSize: number;
  /** Output token limit of plan and generation calls. */
  readonly maxTokens: number;
  /** Per LLM attempt; the LLM client's default when unset. */
  readonly llmTimeoutMs: number | undefined;
  /** URL sources: deadline and size limit of the fetch. */
  readonly fetchTimeoutMs: number;
  readonly maxDocumentBytes: number;
  /** Fetch URLs on loopback/private addresses: local development and tests only. */
  readonly allowPrivateUrls: boolean;
  /** Upper bound of a chunk (characters). */
  readonly chunkMaxChars: number;
}

export const ARTIFACTS_SCHEMA = 'artifacts';


const envSchema = z.object({
  OPENPAW_DATABASE_URL: z.string().min(1).default('postgres://openpaw@127.0.0.1:5432/openpaw'),
  OPENPAW_ARTIFACTS_POOL_SIZE: z.coerce.number().int().positive().default(4),
  OPENPAW_ARTIFACTS_MAX_TOKENS: z.coerce.number().int().positive().default(3_000),
  OPENPAW_ARTIFACTS_LLM_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  OPENPAW_ARTIFACTS_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  OPENPAW_ARTIFACTS_MAX_DOCUMENT_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
  OPENPAW_ARTIFACTS_CHUNK_MAX_CHARS: z.coerce.number().int().min(200).max(20_000).default(1_000),
});

/** Reads the settings; throws naming every invalid variable. */
export function artifactsSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ArtifactsSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid artifacts configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  // The provider factories' own settings, checked before the app is built: a bad value keeps the service not ready, naming it.
  assertProviderSettings(env, providerKindsOf('artifacts'));
  return {
    providerEnv: Object.freeze({ ...env }),
    messaging: serviceMessagingSettingsFromEnv(env),
    databaseUrl: e.OPENPAW_DATABASE_URL,
    poolSize: e.OPENPAW_ARTIFACTS_POOL_SIZE,
    maxTokens: e.OPENPAW_ARTIFACTS_MAX_TOKENS,
    llmTimeoutMs: e.OPENPAW_ARTIFACTS_LLM_TIMEOUT_MS,
    fetchTimeoutMs: e.OPENPAW_ARTIFACTS_FETCH_TIMEOUT_MS,
    maxDocumentBytes: e.OPENPAW_ARTIFACTS_MAX_DOCUMENT_BYTES,
    // No variable turns the SSRF guard off; a test that needs private URLs builds its settings itself.
    allowPrivateUrls: false,
    chunkMaxChars: e.OPENPAW_ARTIFACTS_CHUNK_MAX_CHARS,
  };
}
