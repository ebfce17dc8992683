import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { PROBE_PATHS } from './logging.js';
import { platformTracer } from './tracing.js';

/**
 * Express-style middleware: a SERVER span per HTTP request, continuing the caller's `traceparent`
 * (global propagator), active for everything the request does (handlers, publishes, logs), ended
 * when the response finishes, an error status on 5xx. Probes and metrics scrapes get no span.
 */
export function httpServerSpans(request: IncomingMessage, response: ServerResponse, next: () => void): void {
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  if (PROBE_PATHS.includes(path)) {
    next();
    return;
  }
  const parent = propagation.extract(context.active(), request.headers);
  const method = request.method ?? 'GET';
  const span = platformTracer().startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': path, 'network.protocol.name': 'http' },
    },
    parent,
  );
  response.once('finish', () => {
    // Express fills req.route once routing matched; the low-cardinality name is `METHOD /route/:param`.
    const route = (request as IncomingMessage & { route?: { path?: unknown } }).route?.path;
    if (typeof route === 'string') {
      span.setAttribute('http.route', route);
      span.updateName(`${method} ${route}`);
    }
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  response.once('close', () => {
    if (!response.writableFinished) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'connection closed before the response finished' });
      span.end();
    }
  });
  context.with(trace.setSpan(parent, span), next);
}
