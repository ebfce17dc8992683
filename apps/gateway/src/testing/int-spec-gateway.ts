import type { INestApplication } from '@nestjs/common';
import { serviceMessagingSettingsFromEnv, startService } from '@openpaw/platform';
import { DEFAULT_ADMISSION_LIMITS } from '../admission/admission-limits.js';
import { GatewayModule } from '../app.module.js';
import { artifactsApiConfigFromEnv } from '../artifacts/config.js';
import type { GatewayConfig } from '../config.js';
import { configureGateway } from '../configure.js';

/** The dev-token settings int specs sign their users' tokens with. */
export const INT_SPEC_JWT = { secret: 'integration-test-secret-of-at-least-32-chars', issuer: 'openpaw', audience: 'openpaw-api' } as const;

/**
 * A gateway's settings for an int spec: its NATS and database, blobs in `blobDir` (none when
 * omitted), dev tokens, default admission and short waits. A spec overrides what it is about.
 */
export function intSpecGatewayConfig(
  infra: { readonly natsUrl: string; readonly databaseUrl: string; readonly blobDir?: string },
  overrides: Partial<GatewayConfig> = {},
): GatewayConfig {
  return {
    natsUrl: infra.natsUrl,
    messaging: serviceMessagingSettingsFromEnv({}),
    artifactsApi: artifactsApiConfigFromEnv({}),
    databaseUrl: infra.databaseUrl,
    jwt: INT_SPEC_JWT,
    admission: DEFAULT_ADMISSION_LIMITS,
    cancelWaitMs: 3000,
    sseHeartbeatMs: 250,
    startWaitMs: 2000,
    uploadMaxBytes: 1024 * 1024,
    blobEnv: infra.blobDir === undefined ? {} : { OPENPAW_BLOB_DIR: infra.blobDir },
    ...overrides,
  };
}

/** Starts the gateway on a free port with those settings. */
export function startIntSpecGateway(config: GatewayConfig): Promise<{ readonly app: INestApplication; readonly url: string }> {
  return startService({ name: 'gateway', module: GatewayModule.forRoot(config), defaultPort: 0, port: 0, configure: configureGateway });
}
