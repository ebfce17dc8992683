import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { PROBE_PATHS } from './logging.js';
import type { PlatformMetrics } from './metrics.js';
import { platformTracer } from './tracing.js';

/** Express fills `req.route` once routing matched: the route template (`/runs/:id`), low-cardinality. */
function routeTemplateOf(request: IncomingMessage): string | undefined {
  const route = (request as IncomingMessage & { route?: { path?: unknown } }).route?.path;
  return typeof route === 'string' ? route : undefined;
}

/** A route template that matches any path (`*`, `/*`, `{/*splat}`, `/{*rest}`). */
const CATCH_ALL_ROUTE = /^\{?\/?\{?\*[a-z]*\}?\}?$/i;

/**
 * Express-style middleware: each HTTP request counted and timed on the service's metrics by method,
 * route template (`unmatched` when no route matched, so a scan of random paths adds one series) and
 * status (`openpaw_http_requests_total`, `openpaw_http_request_duration_seconds`). A connection closed
 * before the response finished counts as status 499. Probes and scrapes are not counted.
 */
export function httpServerMetrics(metrics: PlatformMetrics): (request: IncomingMessage, response: ServerResponse, next: () => void) => void {
  return (request, response, next) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (PROBE_PATHS.includes(path)) {
      next();
      return;
    }
    const startedAt = performance.now();
    const method = request.method ?? 'GET';
    let recorded = false;
    const record = (status: number): void => {
      if (recorded) return;
      recorded = true;
      const route = routeTemplateOf(request);
      // Nest's not-found handler is a catch-all route (`{/*splat}` on Express 5): no route of the app matched.
      metrics.recordHttpRequest(method, route === undefined || CATCH_ALL_ROUTE.test(route) ? 'unmatched' : route, status, performance.now() - startedAt);
    };
    response.once('finish', () => record(response.statusCode));
    response.once('close', () => record(response.writableFinished ? response.statusCode : 499));
    next();
  };
}

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
    // The low-cardinality name is `METHOD /route/:param`.
    const route = routeTemplateOf(request);
    if (route !== undefined) {
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
