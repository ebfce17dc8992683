import { type ExternalReadingPolicy, parseExternalReadingPolicy } from './media/external-reading.js';
import { OCR_READERS, type OcrSettings } from './media/ocr-reader.js';
import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { assertProviderSettings, providerKindsOf } from '@openpaw/providers';
import { ocrRemoteSettingsFromEnv } from '@openpaw/providers/ocr';
import { z } from 'zod';
import type { AddressClass } from '@openpaw/providers';
import type { HostResolver } from './domain/safe-fetch.js';

/** The ingestion service's settings, from the environment (validated at start). */
export interface IngestionSettings {
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
  /** NormalizeMedia commands handled at once (each may hold a decoded image in memory). */
  readonly concurrency: number;
  readonly ocr: OcrSettings;
  /**
   * Whose images an external reader may read, and how many per period (`OPENPAW_INGESTION_EXTERNAL_READING`,
   * JSON `{"period":"day","tiers":{"pro":{"callsPerPeriod":50}},"users":{"<id>":{"callsPerPeriod":0}}}`);
   * nobody's by default. Only matters when `ocr.reader` is not local.
   */
  readonly externalReading: ExternalReadingPolicy;
  /** Largest uploaded file accepted (also the image decoder's input limit). */
  readonly maxUploadBytes: number;
  /** Longest problem text accepted, in characters after normalisation. */
  readonly maxTextLength: number;
  /** Blob keys an upload submission may name: the gateway writes uploads under this prefix only. */
  readonly uploadKeyPrefix: string;
  readonly fetch: FetchSettings;
}

export interface FetchSettings {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  /**
   * TEST ONLY. Address classes fetched in addition to public ones (`['loopback']` lets a test reach
   * its own HTTP server on 127.0.0.1). Empty in production: safe fetching refuses loopback, private,
   * link-local and every other non-public target.
   */
  readonly allowAddressClasses: readonly AddressClass[];
  /** TEST ONLY, never from env: a resolver that maps test host names to chosen addresses. */
  readonly resolver?: HostResolver;
}

export const INGESTION_SCHEMA = 'ingestion';

const envSchema = z.object({
  OPENPAW_DATABASE_URL: z.string().min(1).default('postgres://openpaw@127.0.0.1:5432/openpaw'),
  OPENPAW_INGESTION_POOL_SIZE: z.coerce.number().int().positive().default(4),
  OPENPAW_INGESTION_CONCURRENCY: z.coerce.number().int().positive().max(64).default(4),
  OPENPAW_INGESTION_OCR_READER: z.enum(OCR_READERS).default('pp-ocr'),
  OPENPAW_INGESTION_OCR_WORKERS: z.coerce.number().int().positive().max(16).default(1),
  OPENPAW_INGESTION_OCR_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  OPENPAW_INGESTION_EXTERNAL_READING: z.string().optional(),
  OPENPAW_INGESTION_MAX_UPLOAD_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
  OPENPAW_INGESTION_MAX_TEXT_LENGTH: z.coerce.number().int().positive().default(20_000),
  OPENPAW_INGESTION_FETCH_MAX_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
  OPENPAW_INGESTION_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  OPENPAW_INGESTION_FETCH_MAX_REDIRECTS: z.coerce.number().int().nonnegative().max(20).default(5),
});

/** Reads the settings; throws naming every invalid variable. */
export function ingestionSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): IngestionSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid ingestion configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  // The provider factories' own settings, checked before the app is built: a bad value keeps the service not ready, naming it.
  assertProviderSettings(env, providerKindsOf('ingestion'));
  // The OCR reader's credentials and endpoint, as the reader's factory reads them (checked here, before any worker starts).
  ocrRemoteSettingsFromEnv(e.OPENPAW_INGESTION_OCR_READER, env);
  return {
    providerEnv: Object.freeze({ ...env }),
    messaging: serviceMessagingSettingsFromEnv(env),
    databaseUrl: e.OPENPAW_DATABASE_URL,
    poolSize: e.OPENPAW_INGESTION_POOL_SIZE,
    concurrency: e.OPENPAW_INGESTION_CONCURRENCY,
    ocr: { reader: e.OPENPAW_INGESTION_OCR_READER, workers: e.OPENPAW_INGESTION_OCR_WORKERS, timeoutMs: e.OPENPAW_INGESTION_OCR_TIMEOUT_MS },
    externalReading: parseExternalReadingPolicy(e.OPENPAW_INGESTION_EXTERNAL_READING),
    maxUploadBytes: e.OPENPAW_INGESTION_MAX_UPLOAD_BYTES,
    maxTextLength: e.OPENPAW_INGESTION_MAX_TEXT_LENGTH,
    uploadKeyPrefix: 'uploads/',
    fetch: {
      maxBytes: e.OPENPAW_INGESTION_FETCH_MAX_BYTES,
      timeoutMs: e.OPENPAW_INGESTION_FETCH_TIMEOUT_MS,
      maxRedirects: e.OPENPAW_INGESTION_FETCH_MAX_REDIRECTS,
      // No variable turns the SSRF guard off; tests that fetch from 127.0.0.1 start `testing/loopback-main.ts`.
      allowAddressClasses: [],
    },
  };
}
