import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  freshDatabase,
  type OtlpReceiver,
  privateNatsServer,
  type NatsServerHandle,
  type ReceivedSpan,
  type RunningPlatform,
  startOtlpReceiver,
  startPlatformProcesses,
  waitFor,
} from '@openpaw/testing';
import { GatewayClient } from './e2e-client.js';

const root = join(import.meta.dirname, '../../../..');
const SPAN_KIND = { server: 2, producer: 4, consumer: 5 } as const;

/**
 * Tracing across processes: every service exports over OTLP to a local receiver (as to a collector),
 * and one submission started under a client's trace yields one trace through the gateway, the
 * coordinator and each service, every span parented inside it.
 */
describe('one submission, one trace', () => {
  let nats: NatsServerHandle;
  let receiver: OtlpReceiver;
  let platform: RunningPlatform;
  let client: GatewayClient;

  beforeAll(async () => {
    nats = await privateNatsServer();
    receiver = await startOtlpReceiver();
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_tracing'),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
      // Spans leave each process within 100 ms instead of the batch processor's default 5 s.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
    });
    client = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'tracy');
  });

  afterAll(async () => {
    await platform.stop();
    await receiver.close();
    await nats.dispose();
  });

  it('links the gateway, the coordinator and every service of a solved problem under the client\'s trace', async () => {
    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const response = await client.request('/problems?wait=60', {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-${clientSpanId}-01` },
      body: JSON.stringify({ text: 'Solve 7x - 4 = 24' }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { state: string }).state).toBe('SUCCEEDED');

    const consumed = (spans: readonly ReceivedSpan[], service: string, command: string): boolean =>
      spans.some((s) => s.service === service && s.kind === SPAN_KIND.consumer && s.name.includes(command));
    const trace = await waitFor(() => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      const complete =
        consumed(spans, 'ingestion', 'NormalizeMedia') &&
        consumed(spans, 'retrieval', 'SearchSolutions') &&
        consumed(spans, 'solve', 'GenerateSolution') &&
        consumed(spans, 'assets', 'RegisterSolution') &&
        consumed(spans, 'retrieval', 'IndexDocument');
      return complete ? spans : undefined;
    }, 'the services\' spans of the trace', 20_000);

    // The gateway's request span continues the client's span.
    const request = trace.find((s) => s.service === 'gateway' && s.kind === SPAN_KIND.server && s.name.startsWith('POST'));
    expect(request?.parentSpanId).toBe(clientSpanId);
    // The coordinator consumed the start and the services' replies; services consumed its commands.
    expect(trace.filter((s) => s.service === 'coordinator' && s.kind === SPAN_KIND.consumer).length).toBeGreaterThanOrEqual(5);
    expect(trace.some((s) => s.service === 'coordinator' && s.kind === SPAN_KIND.producer)).toBe(true);
    // Parented correctly: every span's parent is a span of this trace, or the client's.
    const ids = new Set([clientSpanId, ...trace.map((s) => s.spanId)]);
    const orphans = trace.filter((s) => !ids.has(s.parentSpanId)).map((s) => `${s.service} ${s.name} (parent ${s.parentSpanId || 'none'})`);
    expect(orphans).toEqual([]);
    // Consumer spans say what they consumed.
    for (const span of trace.filter((s) => s.kind === SPAN_KIND.consumer)) expect(span.attributes['messaging.system']).toBe('nats');
  });
});
