import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { installHttpClientSpans, redactedUrlAttributes } from './http-client-spans.js';
import { installTracing } from './tracing.js';

describe('redacted URLs', () => {
  it('keep the query names, never their values or credentials', () => {
    expect(redactedUrlAttributes(new URL('https://user:pw@serpapi.com/search.json?engine=google_images&q=Ada%20Lovelace&api_key=sk-123&q=again'))).toEqual({
      'url.full': 'https://serpapi.com/search.json?engine=REDACTED&q=REDACTED&api_key=REDACTED',
      'url.query': 'engine=REDACTED&q=REDACTED&api_key=REDACTED',
    });
    expect(redactedUrlAttributes(new URL('http://127.0.0.1:9000/v1/chat/completions'))).toEqual({ 'url.full': 'http://127.0.0.1:9000/v1/chat/completions' });
  });
});

/** A node:http client (as the AWS SDK's handler is) against a local server: spans from Node's diagnostics channels. */
describe('node:http client spans', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('spec');
  const seen: IncomingHttpHeaders[] = [];
  let server: Server;
  let base: string;
  let uninstall: () => void;

  beforeAll(async () => {
    installTracing(); // the context manager and the W3C propagator
    uninstall = installHttpClientSpans(tracer);
    server = createServer((request, response) => {
      seen.push(request.headers);
      response.writeHead(request.url?.startsWith('/fail') === true ? 503 : 200).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    uninstall();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    exporter.reset();
    seen.length = 0;
  });

  const fetchWithHttp = (url: string): Promise<number> =>
    new Promise((resolve, reject) => {
      get(url, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      }).on('error', reject);
    });

  it('a CLIENT span under the active span, with the trace carried to the server and the query redacted', async () => {
    // The parent is active while the request is made, as a CONSUMER span is around a handler.
    const parent = tracer.startSpan('handle command');
    const status = await context.with(trace.setSpan(context.active(), parent), () => fetchWithHttp(`${base}/detect?Image=abc&key=secret`));
    parent.end();
    expect(status).toBe(200);
    const [span] = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(span?.name).toBe('GET');
    expect(span?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'url.full': `${base}/detect?Image=REDACTED&key=REDACTED`,
      'http.response.status_code': 200,
    });
    expect(seen[0]?.traceparent).toBe(`00-${span?.spanContext().traceId}-${span?.spanContext().spanId}-01`);
  });

  it('an error status on a 5xx and on a refused connection', async () => {
    const parent = tracer.startSpan('handle command');
    await context.with(trace.setSpan(context.active(), parent), async () => {
      expect(await fetchWithHttp(`${base}/fail`)).toBe(503);
      await expect(fetchWithHttp('http://127.0.0.1:1/')).rejects.toThrow();
    });
    parent.end();
    const clients = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(clients.map((s) => [s.status.code, s.attributes['error.type']])).toEqual([
      [SpanStatusCode.ERROR, '503'],
      [SpanStatusCode.ERROR, 'ECONNREFUSED'],
    ]);
  });

  it('no span outside a trace, nor for requests sent with tracing suppressed (the exporter\'s)', async () => {
    expect(await fetchWithHttp(`${base}/plain`)).toBe(200);
    const parent = tracer.startSpan('export');
    await context.with(suppressTracing(trace.setSpan(context.active(), parent)), () => fetchWithHttp(`${base}/v1/traces`));
    parent.end();
    expect(exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)).toEqual([]);
    expect(seen.map((headers) => headers.traceparent)).toEqual([undefined, undefined]);
  });
});
