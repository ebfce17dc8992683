import type { INestApplication } from '@nestjs/common';
import { withTraceparent } from '@openpaw/platform';
import type { NextFunction, Request, Response } from 'express';
import { setupOpenApi } from './http/openapi.js';

/** Continues the caller's trace (`traceparent` header) or starts one, for everything the request does. */
export function traceMiddleware(request: Request, _response: Response, next: NextFunction): void {
  const header = request.headers.traceparent;
  withTraceparent(typeof header === 'string' ? header : undefined, next);
}

/**
 * What the gateway adds to its Nest app before listening: the trace middleware (first, so request
 * logs carry the trace id), the OpenAPI document and Swagger UI at `/docs`.
 */
export function configureGateway(app: INestApplication): void {
  app.use(traceMiddleware);
  setupOpenApi(app);
}
