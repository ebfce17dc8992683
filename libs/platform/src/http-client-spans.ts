import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';

/**
 * `url.full` and `url.query` without secrets: provider keys travel in query strings (SerpApi's and
 * OpenAlex's `api_key`) and queries carry users' text, so every query value is replaced by
 * `REDACTED` (the names stay, they say what was asked) and credentials in the URL are dropped.
 */
export function redactedUrlAttributes(url: URL): { 'url.full': string; 'url.query'?: string } {
  const redacted = new URL(url.href);
  redacted.username = '';
  redacted.password = '';
  const names = [...new Set(redacted.searchParams.keys())];
  redacted.search = names.length === 0 ? '' : `?${names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&')}`;
  return redacted.search === '' ? { 'url.full': redacted.href } : { 'url.full': redacted.href, 'url.query': redacted.search.slice(1) };
}

const CREATED = 'http.client.request.created';
const RESPONSE = 'http.client.response.finish';
const ERROR = 'http.client.request.error';

/**
 * CLIENT spans for requests made with `node:http`/`node:https` (the AWS SDK's handler, and anything
 * else not on `fetch`), from Node's own diagnostics channels: nothing is patched, so it works the
 * same for ESM and CommonJS callers. Only under an active span, never for the exporter's own
 * requests (sent with tracing suppressed); the W3C context goes on the request's headers. Returns
 * the function that unsubscribes.
 */
export function installHttpClientSpans(tracer: Tracer = trace.getTracer('openpaw-http-client')): () => void {
  const spans = new WeakMap<ClientRequest, Span>();
  const onCreated = (message: unknown): void => {
    const { request } = message as { request: ClientRequest };
    const active = context.active();
    if (isTracingSuppressed(active) || trace.getSpan(active) === undefined) return;
    const host = request.getHeader('host');
    const url = new URL(request.path, `${request.protocol}//${typeof host === 'string' ? host : request.host}`);
    const span = tracer.startSpan(
      request.method,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': request.method,
          'server.address': url.hostname,
          'server.port': Number(url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : url.port),
          ...redactedUrlAttributes(url),
        },
      },
      active,
    );
    spans.set(request, span);
    const headers: Record<string, string> = {};
    propagation.inject(trace.setSpan(active, span), headers);
    if (!request.headersSent) for (const [name, value] of Object.entries(headers)) request.setHeader(name, value);
  };
  const onResponse = (message: unknown): void => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const span = spans.get(request);
    if (span === undefined) return;
    spans.delete(request);
    const status = response.statusCode ?? 0;
    span.setAttribute('http.response.status_code', status);
    if (status >= 400) {
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  const onError = (message: unknown): void => {
    const { request, error } = message as { request: ClientRequest; error: Error };
    const span = spans.get(request);
    if (span === undefined) return;
    spans.delete(request);
    span.setAttribute('error.type', (error as NodeJS.ErrnoException).code ?? error.name);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    span.end();
  };
  subscribe(CREATED, onCreated);
  subscribe(RESPONSE, onResponse);
  subscribe(ERROR, onError);
  return () => {
    unsubscribe(CREATED, onCreated);
    unsubscribe(RESPONSE, onResponse);
    unsubscribe(ERROR, onError);
  };
}
