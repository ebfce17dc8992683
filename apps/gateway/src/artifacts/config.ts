import { z } from 'zod';

/** The artifact routes' settings, from the environment (validated at start, part of the gateway's `GatewayConfig`). */
export interface ArtifactsApiConfig {
  /** How long `POST /ai/chat` waits for the artifacts service's answer to a chat message. */
  readonly chatTimeoutMs: number;
  /** How long `POST /notebooks/:id/sources` waits for the source to be indexed by default (`?wait=` overrides). */
  readonly sourceWaitMs: number;
  /** How long creating an artifact job waits for its retrieval snapshot (captured at creation, spec 02). */
  readonly snapshotTimeoutMs: number;
}

export const ARTIFACTS_API_CONFIG = Symbol('openpaw.gateway.artifactsApiConfig');

const envSchema = z.object({
  OPENPAW_GATEWAY_CHAT_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  OPENPAW_GATEWAY_SOURCE_WAIT_MS: z.coerce.number().int().nonnegative().default(15_000),
  OPENPAW_GATEWAY_SNAPSHOT_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
});

/** Reads the artifact routes' settings (`gatewayConfigFromEnv` calls it); throws naming every invalid variable. */
export function artifactsApiConfigFromEnv(env: Readonly<Record<string, string | undefined>>): ArtifactsApiConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid gateway configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return {
    chatTimeoutMs: parsed.data.OPENPAW_GATEWAY_CHAT_TIMEOUT_MS,
    sourceWaitMs: parsed.data.OPENPAW_GATEWAY_SOURCE_WAIT_MS,
    snapshotTimeoutMs: parsed.data.OPENPAW_GATEWAY_SNAPSHOT_TIMEOUT_MS,
  };
}
