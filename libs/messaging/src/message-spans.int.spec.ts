import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { createEnvelope, defineCommand } from '@openpaw/contracts';
import { z } from 'zod';
import { startConsumer, type ConsumerHandle } from './consumer.js';
import { commandsConsumer, recordingLogger, startBroker, waitFor, type Broker } from './testing/int-test-kit.js';
import type { HandlerOutcome } from './ports.js';
import { activeTraceHeaders } from './trace-context.js';

const first = defineCommand('spana', 'First', 1, z.object({ n: z.int() }), 'test command');
const second = defineCommand('spanb', 'Second', 1, z.object({ n: z.int() }), 'test command');
const meta = { source: '/openpaw/test', correlationId: 'run-spans' };

describe('message spans (real nats-server, in-memory exporter)', () => {
  let broker: Broker;
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const handles: ConsumerHandle[] = [];

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
    broker = await startBroker();
  });

  afterAll(async () => {
    await Promise.all(handles.map((h) => h.stop()));
    await broker.dispose();
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  const byName = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
  const parentOf = (span: ReadableSpan | undefined): string | undefined => span?.parentSpanContext?.spanId;

  it('request -> PRODUCER -> CONSUMER -> PRODUCER -> CONSUMER is one trace, each span the child of the one before; a nak is an error', async () => {
    let secondAttempts = 0;
    const a = await commandsConsumer(broker, 'spana');
    const b = await commandsConsumer(broker, 'spanb');
    handles.push(
      await startConsumer(broker.js, {
        ...a,
        definitions: [first],
        logger: recordingLogger(),
        handler: async (item) => {
          await broker.publisher.publish(second, { n: (item.envelope.data as { n: number }).n + 1 }, meta);
        },
      }),
      await startConsumer(broker.js, {
        ...b,
        definitions: [second],
        logger: recordingLogger(),
        backoffMs: [10],
        handler: (): Promise<HandlerOutcome> => {
          secondAttempts += 1;
          return Promise.resolve(secondAttempts === 1 ? { kind: 'retry', reason: 'not yet', delayMs: 10 } : { kind: 'ack' });
        },
      }),
    );

    const request = trace.getTracer('test').startSpan('POST /problems', { kind: SpanKind.SERVER });
    await context.with(trace.setSpan(context.active(), request), () => broker.publisher.publish(first, { n: 1 }, meta));
    request.end();

    const consumed = await waitFor(() => {
      const spans = byName(`process ${second.subject}`);
      return spans.length >= 2 ? spans : undefined;
    }, 'both deliveries of the second command');

    const [sendFirst] = byName(`send ${first.subject}`);
    const [processFirst] = byName(`process ${first.subject}`);
    const [sendSecond] = byName(`send ${second.subject}`);
    const traceId = request.spanContext().traceId;
    for (const span of [sendFirst, processFirst, sendSecond, ...consumed]) expect(span?.spanContext().traceId).toBe(traceId);

    expect(sendFirst?.kind).toBe(SpanKind.PRODUCER);
    expect(parentOf(sendFirst)).toBe(request.spanContext().spanId);
    expect(processFirst?.kind).toBe(SpanKind.CONSUMER);
    expect(parentOf(processFirst)).toBe(sendFirst?.spanContext().spanId);
    expect(parentOf(sendSecond)).toBe(processFirst?.spanContext().spanId);
    for (const span of consumed) expect(parentOf(span)).toBe(sendSecond?.spanContext().spanId);

    expect(processFirst?.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': first.subject,
      'messaging.consumer.group.name': 'svc-spana',
      'messaging.message.conversation_id': 'run-spans',
      'openpaw.outcome': 'ack',
    });
    const [nak, ack] = [...consumed].sort((x, y) => Number(x.attributes['messaging.nats.delivery_count']) - Number(y.attributes['messaging.nats.delivery_count']));
    expect(nak?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'retry: not yet' });
    expect(ack?.status.code).not.toBe(SpanStatusCode.ERROR);
    // Every span has its own id: no consumer republishes its producer's span id.
    const ids = exporter.getFinishedSpans().map((s) => s.spanContext().spanId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a relayed envelope (no active span) is parented on the trace the envelope carries', async () => {
    exporter.reset();
    const origin = trace.getTracer('test').startSpan('origin');
    // As the coordinator's outbox does: the envelope is written inside a trace and relayed later, outside it.
    const envelope = context.with(trace.setSpan(context.active(), origin), () => createEnvelope(first, { n: 5 }, { ...meta, ...activeTraceHeaders() }));
    origin.end();
    await context.with(trace.deleteSpan(context.active()), () => broker.publisher.publishEnvelope(envelope));
    const [send] = byName(`send ${first.subject}`);
    expect(send?.spanContext().traceId).toBe(origin.spanContext().traceId);
    expect(parentOf(send)).toBe(origin.spanContext().spanId);
  });
});
