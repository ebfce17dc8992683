import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { GatewayModule } from '../app.module.js';
import { gatewayConfigFromEnv } from '../config.js';
import { openApiDocument } from '../http/openapi.js';

/**
 * A secret that satisfies the configuration's validation: in preview mode no provider is ever
 * instantiated, so nothing is signed or verified with it.
 */
const PREVIEW_ONLY_SECRET = 'preview-mode-builds-no-providers-0000000000';

/**
 * Builds the gateway's OpenAPI document without starting it: Nest's preview mode resolves the module
 * graph (controllers and their decorators) but creates no provider, so no NATS or PostgreSQL is needed.
 */
export async function buildOpenApiDocument(): Promise<OpenAPIObject> {
  const config = gatewayConfigFromEnv({ OPENPAW_JWT_SECRET: PREVIEW_ONLY_SECRET });
  const app = await NestFactory.create(GatewayModule.forRoot(config), { preview: true, logger: false, abortOnError: false });
  try {
    return openApiDocument(app);
  } finally {
    await app.close();
  }
}

/** The document as committed (`apps/gateway/openapi.json`): stable key order, two-space indent, final newline. */
export function renderOpenApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
