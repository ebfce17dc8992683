import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { createEnvelope, defineCommand, STREAMS } from '@openpaw/contracts';
import { z } from 'zod';
import { startBroker, storedMessages, type Broker } from './testing/int-test-kit.js';
import { CLOUDEVENTS_CONTENT_TYPE } from './publisher.js';

const Ping = defineCommand('pub', 'Ping', 1, z.object({ n: z.int() }), 'test command');
const meta = { source: '/openpaw/test', correlationId: 'run-1' };
const decode = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));

describe('JetStreamPublisher (real nats-server)', () => {
  let broker: Broker;
  const contextManager = new AsyncLocalStorageContextManager();

  beforeAll(async () => {
    broker = await startBroker();
    context.setGlobalContextManager(contextManager.enable());
  });

  afterAll(async () => {
    context.disable();
    await broker.dispose();
  });

  it('stores an envelope published twice inside the duplicate window once (Nats-Msg-Id = envelope id)', async () => {
    const envelope = createEnvelope(Ping, { n: 1 }, { ...meta, id: 'dedup-1' });
    await broker.publisher.publishEnvelope(envelope);
    await broker.publisher.publishEnvelope(envelope);
    const again = await broker.publisher.send(envelope, envelope.id);
    expect(again.duplicate).toBe(true);

    const stored = await storedMessages(broker.jsm, STREAMS.commands.name, Ping.subject);
    expect(stored).toHaveLength(1);
    const [msg] = stored;
    expect(msg?.header.get('Nats-Msg-Id')).toBe('dedup-1');
    expect(msg?.header.get('Content-Type')).toBe(CLOUDEVENTS_CONTENT_TYPE);
    expect(decode(msg?.data ?? new Uint8Array())).toEqual(envelope);
  });

  it('uses the given msgId instead of the envelope id, so a deliberate re-send is stored', async () => {
    const envelope = createEnvelope(Ping, { n: 2 }, { ...meta, id: 'resend-1' });
    await broker.publisher.publishEnvelope(envelope);
    await broker.publisher.publishEnvelope(envelope, { msgId: 'outbox-row-7' });
    const ids = (await storedMessages(broker.jsm, STREAMS.commands.name, Ping.subject)).map((m) => m.header.get('Nats-Msg-Id'));
    expect(ids).toEqual(expect.arrayContaining(['resend-1', 'outbox-row-7']));
  });

  it("carries the envelope's traceparent in the headers", async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const envelope = await broker.publisher.publish(Ping, { n: 3 }, { ...meta, traceparent, tracestate: 'vendor=x' });
    const stored = (await storedMessages(broker.jsm, STREAMS.commands.name, Ping.subject)).find((m) => m.header.get('Nats-Msg-Id') === envelope.id);
    expect(stored?.header.get('traceparent')).toBe(traceparent);
    expect(stored?.header.get('tracestate')).toBe('vendor=x');
  });

  it('takes the trace context from the active OpenTelemetry span when the envelope has none, and records it in the envelope', async () => {
    const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED };
    const envelope = await context.with(trace.setSpanContext(context.active(), spanContext), () =>
      broker.publisher.publish(Ping, { n: 4 }, meta),
    );
    const expected = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(envelope.traceparent).toBe(expected);
    const stored = (await storedMessages(broker.jsm, STREAMS.commands.name, Ping.subject)).find((m) => m.header.get('Nats-Msg-Id') === envelope.id);
    expect(stored?.header.get('traceparent')).toBe(expected);

    const outboxEnvelope = createEnvelope(Ping, { n: 5 }, meta);
    await context.with(trace.setSpanContext(context.active(), spanContext), () => broker.publisher.publishEnvelope(outboxEnvelope));
    const relayed = (await storedMessages(broker.jsm, STREAMS.commands.name, Ping.subject)).find(
      (m) => m.header.get('Nats-Msg-Id') === outboxEnvelope.id,
    );
    expect(relayed?.header.get('traceparent')).toBe(expected);
  });

  it('refuses data that fails the schema before publishing anything', async () => {
    // @ts-expect-error: n must be an integer
    await expect(broker.publisher.publish(Ping, { n: 'x' }, meta)).rejects.toThrow();
  });
});
