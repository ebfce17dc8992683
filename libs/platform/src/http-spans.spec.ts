import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { httpServerSpans } from './http-spans.js';
import { currentSpanId, currentTraceId, installTracing, shutdownTracing } from './tracing.js';

describe('SERVER span per HTTP request (in-memory exporter)', () => {
  const exporter = new InMemorySpanExporter();
  let server: Server;
  let base: string;
  const seenInHandler: { traceId?: string; spanId?: string }[] = [];

  beforeAll(async () => {
    installTracing({ exporter, processor: 'simple', serviceName: 'http-spans-spec' });
    server = createServer((req, res) =>
      httpServerSpans(req, res, () => {
        seenInHandler.push({ traceId: currentTraceId(), spanId: currentSpanId() });
        res.statusCode = req.url === '/boom' ? 500 : 200;
        res.end('ok');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await shutdownTracing();
  });

  it('continues the caller traceparent, is active in the handler (log ids), and records the status', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await fetch(`${base}/problems?x=1`, { method: 'POST', headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    await fetch(`${base}/boom`);
    await fetch(`${base}/healthz`);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['POST', 'GET']);
    const [post, boom] = spans;
    expect(post?.kind).toBe(SpanKind.SERVER);
    expect(post?.spanContext().traceId).toBe(traceId);
    expect(post?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(post?.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/problems', 'http.response.status_code': 200 });
    expect(post?.resource.attributes['service.name']).toBe('http-spans-spec');
    expect(seenInHandler[0]).toEqual({ traceId, spanId: post?.spanContext().spanId });
    expect(boom?.status.code).toBe(SpanStatusCode.ERROR);
    expect(boom?.parentSpanContext).toBeUndefined();
  });
});
