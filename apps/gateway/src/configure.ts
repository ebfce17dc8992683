import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { CONSOLE_PATH, consoleStatic, defaultConsoleDir } from './console/console-static.js';
import { GATEWAY_CONFIG, type GatewayConfig } from './config.js';
import { answerMalformedRequests } from './http/malformed-requests.js';
import { setupOpenApi } from './http/openapi.js';

/**
 * What the gateway adds to its Nest app before listening: the OpenAPI document and Swagger UI at
 * `/docs`, and the web console's static files at `/console` (`GatewayConfig.consoleDir`, default the
 * built `dist/apps/console/public`), and a JSON 400 naming the problem for a request the HTTP parser
 * refuses (e.g. a NUL in a header). (Every service's app already runs each request in a SERVER span
 * continuing the caller's `traceparent`: libs/platform `httpServerSpans`.)
 */
export function configureGateway(app: INestApplication): void {
  const config = app.get<GatewayConfig>(GATEWAY_CONFIG);
  setupOpenApi(app, config.docsPublic === true);
  app.use(CONSOLE_PATH, consoleStatic(config.consoleDir ?? defaultConsoleDir()));
  answerMalformedRequests(app.getHttpServer() as Server);
}
