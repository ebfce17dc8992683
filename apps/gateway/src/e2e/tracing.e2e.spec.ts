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
import { schemaFields, type ScriptedModelServer, startScriptedModelServer } from './scripted-model-server.js';

const root = join(import.meta.dirname, '../../../..');
const SPAN_KIND = { server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** A tutor model behind the OpenAI adapter, so the solve service makes a real outgoing HTTP call. */
const SOLUTION = JSON.stringify({
  can_solve: true,
  reason: null,
  steps: [
    { title: 'Add 4 to both sides', detail: '\\(7x = 28\\)' },
    { title: 'Divide both sides by 7', detail: '\\(x = 4\\)' },
  ],
  final_answer: '\\(x = 4\\)',
});

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
  let model: ScriptedModelServer;

  beforeAll(async () => {
    nats = await privateNatsServer();
    receiver = await startOtlpReceiver();
    model = await startScriptedModelServer((request) =>
      schemaFields(request).includes('can_solve') ? { content: SOLUTION } : { status: 400, message: 'this scripted model only answers solve prompts' },
    );
    const llm = { OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini', OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-e2e', OPENPAW_LLM_MAX_ATTEMPTS: '1' };
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_tracing'),
      services: ['coordinator', 'ingestion', 'retrieval', 'solve', 'assets', 'gateway'],
      // Spans leave each process within 100 ms instead of the batch processor's default 5 s.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' },
      // The coordinator names the model in GenerateSolution; solve asks it (the maths engine only checks).
      serviceEnv: { coordinator: { OPENPAW_LLM_MODEL: 'openai/gpt-4o-mini' }, solve: { ...llm, OPENPAW_SOLVE_MATHS_ENGINE: 'check' } },
    });
    client = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'tracy');
  });

  afterAll(async () => {
    await platform.stop();
    await model.close();
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
    // Parented correctly: every span's parent is a span of this trace, or the client's. A parent ends
    // (and is exported) after its children, so the trace is complete once no span waits for its parent.
    const orphansOf = (spans: readonly ReceivedSpan[]): string[] => {
      const ids = new Set([clientSpanId, ...spans.map((s) => s.spanId)]);
      return spans.filter((s) => !ids.has(s.parentSpanId)).map((s) => `${s.service} ${s.name} (parent ${s.parentSpanId || 'none'})`);
    };
    let orphans: string[] = [];
    // The wait is generous: the background video render belongs to this trace too, and its span (the
    // parent of its database spans) ends only when the render does: tens of seconds on a loaded machine.
    const trace = await waitFor(() => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      const complete =
        consumed(spans, 'ingestion', 'NormalizeMedia') &&
        consumed(spans, 'retrieval', 'SearchSolutions') &&
        consumed(spans, 'solve', 'GenerateSolution') &&
        consumed(spans, 'assets', 'RegisterSolution') &&
        consumed(spans, 'retrieval', 'IndexDocument');
      orphans = orphansOf(spans);
      return complete && orphans.length === 0 ? spans : undefined;
    }, 'the services\' spans of the trace', 90_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; spans whose parent never arrived: ${JSON.stringify(orphans)}`);
    });

    // The gateway's request span continues the client's span.
    const request = trace.find((s) => s.service === 'gateway' && s.kind === SPAN_KIND.server && s.name.startsWith('POST'));
    expect(request?.parentSpanId).toBe(clientSpanId);
    // The coordinator consumed the start and the services' replies; services consumed its commands.
    expect(trace.filter((s) => s.service === 'coordinator' && s.kind === SPAN_KIND.consumer).length).toBeGreaterThanOrEqual(5);
    expect(trace.some((s) => s.service === 'coordinator' && s.kind === SPAN_KIND.producer)).toBe(true);
    // Consumer spans say what they consumed.
    for (const span of trace.filter((s) => s.kind === SPAN_KIND.consumer)) expect(span.attributes['messaging.system']).toBe('nats');

    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const parentOf = (span: ReceivedSpan): ReceivedSpan | undefined => byId.get(span.parentSpanId);
    // PostgreSQL: the coordinator's transaction for a message runs under that message's CONSUMER span (its
    // write of the run: most batches are decided without reading the run first, ADR 0032).
    const runQuery = trace.find(
      (s) => s.service === 'coordinator' && s.kind === SPAN_KIND.client && s.attributes['db.query.text']?.includes('workflow_runs') === true,
    );
    expect(runQuery?.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.namespace': expect.stringContaining('e2e_tracing') });
    const applied = parentOf(runQuery as ReceivedSpan);
    expect(applied).toMatchObject({ service: 'coordinator', kind: SPAN_KIND.consumer });
    // HTTP: the solve service's call to the model runs under its GenerateSolution CONSUMER span, and carries the trace on.
    const modelCall = trace.find((s) => s.service === 'solve' && s.kind === SPAN_KIND.client && s.attributes['url.full']?.startsWith(model.baseUrl));
    expect(modelCall?.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': '200' });
    const generate = parentOf(modelCall as ReceivedSpan);
    expect(generate).toMatchObject({ service: 'solve', kind: SPAN_KIND.consumer });
    expect(generate?.name).toContain('GenerateSolution');
    expect(model.traceparents.some((header) => header.startsWith(`00-${traceId}-${modelCall?.spanId ?? ''}-`))).toBe(true);
  }, 180_000);
});
