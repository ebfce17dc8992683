import { blobSettingsFromEnv, type Env } from '@openpaw/providers/blob';
import { natsConnectionSettingsFromEnv, type NatsConnectionSettings } from '@openpaw/messaging';
import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { z } from 'zod';
import { type AdmissionLimits, admissionLimitsFrom } from './admission/admission-limits.js';
import { type ArtifactsApiConfig, artifactsApiConfigFromEnv } from './artifacts/config.js';

/** The gateway's configuration, from the environment (validated at start). */
export interface GatewayConfig {
  readonly natsUrl: string;
  /**
   * NATS servers, stream provisioning, the command lanes this process consumes and their concurrency
   * (`OPENPAW_NATS_URL`, `OPENPAW_STREAMS_*`, `OPENPAW_LANES`, `OPENPAW_LANE_CONCURRENCY`).
   */
  readonly messaging: ServiceMessagingSettings;
  /**
   * The NATS user the dead-letter redrive alone connects as (`OPENPAW_NATS_REDRIVER_CREDS_FILE`, its
   * `.creds` file; TLS as the gateway's): it may republish any message, the gateway's own user only
   * the messages it sends. Unset: the redrive uses the gateway's connection (a NATS without users).
   */
  readonly redriverNats?: NatsConnectionSettings;
  readonly databaseUrl: string;
  /** PostgreSQL connections per gateway process (`OPENPAW_GATEWAY_POOL_SIZE`; the manifests' connection budget counts it). */
  readonly databasePoolSize?: number;
  readonly jwt: JwtConfig;
  /** How long `POST /runs/:id/cancel` waits for the coordinator's answer. */
  readonly cancelWaitMs: number;
  /** Interval of SSE heartbeat comments. */
  readonly sseHeartbeatMs: number;
  /**
   * How long `POST /problems` waits, after starting a run, for the coordinator's first answer (the
   * run's first state, or a refusal of the start) before answering 202 without it.
   */
  readonly startWaitMs: number;
  /** Largest image `POST /problems` accepts (bytes); larger is a 413 naming the limit. */
  readonly uploadMaxBytes: number;
  /**
   * The environment the blob store and the share-link secret are built from (`OPENPAW_BLOB_DIR`,
   * `OPENPAW_GCS_*`, `OPENPAW_BLOB_SHARE_*`, see `@openpaw/providers`): the same directory or bucket
   * the other services use.
   */
  readonly blobEnv: Env;
  /**
   * The environment secret sealing and the users' key vault are built from
   * (`OPENPAW_KEY_SEALING_PUBLIC_KEY`, or `OPENPAW_KEY_ENCRYPTION_KEY` in development, see
   * `@openpaw/providers/keys`): the gateway seals and cannot open. Without either, both answer 503.
   */
  readonly keysEnv?: Env;
  /** The web console's built files served at `/console` (`OPENPAW_CONSOLE_DIR`; default the built `dist/apps/console/public`). */
  readonly consoleDir?: string;
  /** `OPENPAW_DOCS_PUBLIC=true`: Swagger UI and the document on the public port too (see `docsArePublic`). */
  readonly docsPublic?: boolean;
  /** Admission control (flow control at the edge): per-tier rate and in-flight limits, global bounds. */
  readonly admission: AdmissionLimits;
  /** The artifact routes' waits (`OPENPAW_GATEWAY_CHAT_TIMEOUT_MS`, `..._SOURCE_WAIT_MS`, `..._SNAPSHOT_TIMEOUT_MS`). */
  readonly artifactsApi: ArtifactsApiConfig;
}

export interface JwtConfig {
  /** HS256 shared secret (at least 32 bytes): the development mode. Absent when only JWKS is trusted. */
  readonly secret?: string;
  readonly issuer: string;
  readonly audience: string;
  /** JWKS of the identity provider (RS256/ES256 tokens; keys rotate by `kid`). */
  readonly jwksUrl?: string;
  /** OIDC issuer whose discovery document names the JWKS (`<issuer>/.well-known/openid-configuration`). */
  readonly oidcIssuer?: string;
  /** Least time between two JWKS refetches for an unknown `kid` (default 30 s). */
  readonly jwksCooldownMs?: number;
  /** Where an identity provider's token carries the roles (a dotted path, e.g. `realm_access.roles`; default `roles`). */
  readonly rolesClaim?: string;
  /** The console's OAuth client at the OIDC issuer (a public client using PKCE): enables "sign in with OIDC". */
  readonly oidcClientId?: string;
}

export const GATEWAY_CONFIG = Symbol('openpaw.gateway.config');

export const DEFAULT_JWT_ISSUER = 'openpaw';
export const DEFAULT_JWT_AUDIENCE = 'openpaw-api';
/** 10 MiB: a phone photo fits, a video does not. */
export const DEFAULT_UPLOAD_MAX_BYTES = 10 * 1024 * 1024;

const envSchema = z
  .object({
  OPENPAW_NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  OPENPAW_NATS_REDRIVER_CREDS_FILE: z.string().min(1).optional(),
  OPENPAW_DATABASE_URL: z.string().min(1).default('postgres://openpaw@127.0.0.1:5432/openpaw'),
  OPENPAW_GATEWAY_POOL_SIZE: z.coerce.number().int().positive().default(10),
  OPENPAW_JWT_SECRET: z.string().min(32, 'OPENPAW_JWT_SECRET must be at least 32 characters').optional(),
  OPENPAW_JWKS_URL: z.url().optional(),
  OPENPAW_OIDC_ISSUER: z.url().optional(),
  OPENPAW_OIDC_CLIENT_ID: z.string().min(1).optional(),
  OPENPAW_OIDC_ROLES_CLAIM: z
    .string()
    .regex(/^[A-Za-z0-9_:/-]+(\.[A-Za-z0-9_:/-]+)*$/, 'a claim name or a dotted path to it (realm_access.roles)')
    .optional(),
  OPENPAW_JWT_ISSUER: z.string().min(1).default(DEFAULT_JWT_ISSUER),
  OPENPAW_JWT_AUDIENCE: z.string().min(1).default(DEFAULT_JWT_AUDIENCE),
  OPENPAW_GATEWAY_CANCEL_WAIT_MS: z.coerce.number().int().positive().default(5000),
  OPENPAW_GATEWAY_SSE_HEARTBEAT_MS: z.coerce.number().int().positive().default(15000),
  OPENPAW_GATEWAY_START_WAIT_MS: z.coerce.number().int().nonnegative().default(2000),
  OPENPAW_GATEWAY_UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(DEFAULT_UPLOAD_MAX_BYTES),
  })
  .refine((e) => e.OPENPAW_JWT_SECRET !== undefined || e.OPENPAW_JWKS_URL !== undefined || e.OPENPAW_OIDC_ISSUER !== undefined, {
    path: ['OPENPAW_JWT_SECRET'],
    message: 'set OPENPAW_JWT_SECRET (HS256, development) or OPENPAW_JWKS_URL / OPENPAW_OIDC_ISSUER (RS256/ES256)',
  })
  .refine((e) => e.OPENPAW_OIDC_CLIENT_ID === undefined || e.OPENPAW_OIDC_ISSUER !== undefined, {
    path: ['OPENPAW_OIDC_CLIENT_ID'],
    message: 'the console signs in at OPENPAW_OIDC_ISSUER: set it too',
  });

/** Reads the gateway's configuration from `env`; throws naming every missing or invalid variable. */
export function gatewayConfigFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid gateway configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  // The blob store's settings, checked before the app is built (its writability by a startup check on `assertBlobStoreUsable`, see main.ts).
  blobSettingsFromEnv(env);
  return {
    natsUrl: e.OPENPAW_NATS_URL,
    messaging: serviceMessagingSettingsFromEnv(env),
    ...(e.OPENPAW_NATS_REDRIVER_CREDS_FILE === undefined
      ? {}
      : { redriverNats: natsConnectionSettingsFromEnv({ ...env, OPENPAW_NATS_USER: undefined, OPENPAW_NATS_PASSWORD: undefined, OPENPAW_NATS_CREDS_FILE: e.OPENPAW_NATS_REDRIVER_CREDS_FILE }) }),
    databaseUrl: e.OPENPAW_DATABASE_URL,
    databasePoolSize: e.OPENPAW_GATEWAY_POOL_SIZE,
    jwt: {
      issuer: e.OPENPAW_JWT_ISSUER,
      audience: e.OPENPAW_JWT_AUDIENCE,
      ...(e.OPENPAW_JWT_SECRET === undefined ? {} : { secret: e.OPENPAW_JWT_SECRET }),
      ...(e.OPENPAW_JWKS_URL === undefined ? {} : { jwksUrl: e.OPENPAW_JWKS_URL }),
      ...(e.OPENPAW_OIDC_ISSUER === undefined ? {} : { oidcIssuer: e.OPENPAW_OIDC_ISSUER }),
      ...(e.OPENPAW_OIDC_CLIENT_ID === undefined ? {} : { oidcClientId: e.OPENPAW_OIDC_CLIENT_ID }),
      ...(e.OPENPAW_OIDC_ROLES_CLAIM === undefined ? {} : { rolesClaim: e.OPENPAW_OIDC_ROLES_CLAIM }),
    },
    cancelWaitMs: e.OPENPAW_GATEWAY_CANCEL_WAIT_MS,
    sseHeartbeatMs: e.OPENPAW_GATEWAY_SSE_HEARTBEAT_MS,
    startWaitMs: e.OPENPAW_GATEWAY_START_WAIT_MS,
    uploadMaxBytes: e.OPENPAW_GATEWAY_UPLOAD_MAX_BYTES,
    blobEnv: env,
    keysEnv: env,
    ...(env['OPENPAW_CONSOLE_DIR'] === undefined ? {} : { consoleDir: env['OPENPAW_CONSOLE_DIR'] }),
    docsPublic: env['OPENPAW_DOCS_PUBLIC'] === 'true',
    admission: admissionLimitsFrom(env['OPENPAW_ADMISSION_JSON']),
    artifactsApi: artifactsApiConfigFromEnv(env),
  };
}
