import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { assertProviderSettings, providerKindsOf } from '@openpaw/providers';
import { z } from 'zod';

/** Where vectors live: Qdrant when `OPENPAW_QDRANT_URL` is set, else the embedded index (PostgreSQL + memory). */
export type VectorBackendSettings =
  | { readonly backend: 'embedded' }
  | { readonly backend: 'qdrant'; readonly url: string; readonly apiKey?: string; readonly collection: string; readonly timeoutMs: number };

/** The retrieval service's settings, from the environment (validated at start). The embedder comes from `OPENPAW_EMBEDDINGS_*` (providers). */
export interface RetrievalSettings {
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
  /** Commands handled at once. */
  readonly concurrency: number;
  readonly vectors: VectorBackendSettings;
  /**
   * The pHash indexes (and the embedded vector index) are held in memory per replica; before a search,
   * a replica takes in what others indexed if it last looked longer ago than this (0: before every search).
   */
  readonly refreshMs: number;
  /**
   * Publish each retrieval reply's deprecated v1 beside its v2, for subscribers that have not moved
   * (`OPENPAW_RETRIEVAL_REPLIES_V1=on`; default off: a message, its storage and deliveries less per
   * search, the way `OPENPAW_RUN_STATE_CHANGED_V1` keeps `RunStateChanged` v1).
   */
  readonly publishRepliesV1: boolean;
}

export const RETRIEVAL_SCHEMA = 'retrieval';
export const DEFAULT_QDRANT_COLLECTION = 'openpaw_problems';

const envSchema = z.object({
  OPENPAW_DATABASE_URL: z.string().min(1).default('postgres://openpaw@127.0.0.1:5432/openpaw'),
  OPENPAW_RETRIEVAL_POOL_SIZE: z.coerce.number().int().positive().default(4),
  OPENPAW_RETRIEVAL_CONCURRENCY: z.coerce.number().int().positive().max(64).default(8),
  OPENPAW_RETRIEVAL_REFRESH_MS: z.coerce.number().int().nonnegative().default(1_000),
  OPENPAW_QDRANT_URL: z.url({ protocol: /^https?$/ }).optional().or(z.literal('').transform(() => undefined)),
  OPENPAW_QDRANT_API_KEY: z.string().optional(),
  OPENPAW_QDRANT_COLLECTION: z.string().regex(/^[A-Za-z0-9_-]{1,255}$/).default(DEFAULT_QDRANT_COLLECTION),
  OPENPAW_QDRANT_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  OPENPAW_RETRIEVAL_REPLIES_V1: z.enum(['on', 'off']).default('off'),
});

/** Reads the settings; throws naming every invalid variable. */
export function retrievalSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RetrievalSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid retrieval configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  // The provider factories' own settings, checked before the app is built: a bad value keeps the service not ready, naming it.
  assertProviderSettings(env, providerKindsOf('retrieval'));
  const apiKey = e.OPENPAW_QDRANT_API_KEY === undefined || e.OPENPAW_QDRANT_API_KEY === '' ? undefined : e.OPENPAW_QDRANT_API_KEY;
  return {
    providerEnv: Object.freeze({ ...env }),
    messaging: serviceMessagingSettingsFromEnv(env),
    databaseUrl: e.OPENPAW_DATABASE_URL,
    poolSize: e.OPENPAW_RETRIEVAL_POOL_SIZE,
    concurrency: e.OPENPAW_RETRIEVAL_CONCURRENCY,
    refreshMs: e.OPENPAW_RETRIEVAL_REFRESH_MS,
    publishRepliesV1: e.OPENPAW_RETRIEVAL_REPLIES_V1 === 'on',
    vectors:
      e.OPENPAW_QDRANT_URL === undefined
        ? { backend: 'embedded' }
        : {
            backend: 'qdrant',
            url: e.OPENPAW_QDRANT_URL,
            ...(apiKey === undefined ? {} : { apiKey }),
            collection: e.OPENPAW_QDRANT_COLLECTION,
            timeoutMs: e.OPENPAW_QDRANT_TIMEOUT_MS,
          },
  };
}
