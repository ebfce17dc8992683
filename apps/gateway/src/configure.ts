import type { INestApplication } from '@nestjs/common';
import { setupOpenApi } from './http/openapi.js';

/**
 * What the gateway adds to its Nest app before listening: the OpenAPI document and Swagger UI at
 * `/docs`. (Every service's app already runs each request in a SERVER span continuing the caller's
 * `traceparent`: libs/platform `httpServerSpans`.)
 */
export function configureGateway(app: INestApplication): void {
  setupOpenApi(app);
}
