import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createEnvelope, deadLetterSubjectOf, defineCommand, messageValidations, STREAMS, type AnyMessageDefinition } from '@openpaw/contracts';
import { z } from 'zod';
import { messageCountsSince, readMessageCounts } from './message-budget.js';
import { DLQ_HEADERS, startConsumer, type ConsumerHandle, type MessageConsumerOptions } from './consumer.js';
import { commandsConsumer, recordingLogger, sleep, startBroker, storedMessages, waitFor, type Broker } from './testing/int-test-kit.js';
import type { MessagingObserver } from './observability.js';
import type { BatchItem, HandlerOutcome } from './ports.js';
import { ValidatedEnvelopes } from './validated-envelopes.js';

const work = (service: string) => defineCommand(service, 'Work', 1, z.object({ n: z.int() }), 'test command');
const meta = { source: '/openpaw/test', correlationId: 'run-1' };
const encoder = new TextEncoder();

function recordingObserver(): MessagingObserver & { handled: string[]; deadLettered: { subject: string; reason: string }[] } {
  const handled: string[] = [];
  const deadLettered: { subject: string; reason: string }[] = [];
  return {
    handled,
    deadLettered,
    onHandled: (_subject, outcome) => handled.push(outcome),
    onDeadLettered: (subject, reason) => deadLettered.push({ subject, reason }),
  };
}

const dataOf = (item: BatchItem): { n: number } => item.envelope.data as { n: number };

describe('startConsumer (real nats-server)', () => {
  let broker: Broker;
  const handles: ConsumerHandle[] = [];
  const contextManager = new AsyncLocalStorageContextManager();

  beforeAll(async () => {
    broker = await startBroker();
    context.setGlobalContextManager(contextManager.enable());
  });

  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.stop()));
  });

  afterAll(async () => {
    context.disable();
    await broker.dispose();
  });

  async function consume(
    service: string,
    definitions: readonly AnyMessageDefinition[],
    handler: MessageConsumerOptions['handler'],
    options: Partial<Omit<MessageConsumerOptions, 'handler' | 'stream' | 'durable' | 'definitions'>> = {},
    consumerOverrides: Parameters<typeof commandsConsumer>[2] = {},
  ): Promise<ConsumerHandle> {
    const { stream, durable } = await commandsConsumer(broker, service, consumerOverrides);
    const handle = await startConsumer(broker.js, { stream, durable, definitions, handler, logger: recordingLogger(), ...options });
    handles.push(handle);
    return handle;
  }

  const deadLetters = (subject: string) => storedMessages(broker.jsm, STREAMS.deadLetters.name, deadLetterSubjectOf(subject));
  const awaitDeadLetters = (subject: string, count: number) =>
    waitFor(async () => {
      const found = await deadLetters(subject);
      return found.length >= count ? found : undefined;
    }, `${count} dead letters on ${subject}`);

  it('keeps exactly `concurrency` handlers in flight when more messages wait, never more', async () => {
    const Work = work('conc');
    let active = 0;
    let maxActive = 0;
    const seen: number[] = [];
    await consume(
      'conc',
      [Work],
      async (item) => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await sleep(60);
        seen.push(dataOf(item).n);
        active -= 1;
      },
      { concurrency: 3 },
    );
    await Promise.all(Array.from({ length: 15 }, (_, n) => broker.publisher.publish(Work, { n }, meta)));
    await waitFor(() => (seen.length === 15 ? true : undefined), '15 handled');
    expect(maxActive).toBe(3);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, n) => n));
  });

  it('takes a message another reader here validated already, and validates one whose bytes differ from the remembered ones', async () => {
    const Work = work('memo');
    const validatedEnvelopes = new ValidatedEnvelopes();
    const remembered = createEnvelope(Work, { n: 1 }, { ...meta, id: 'memo-1' });
    const otherBytes = createEnvelope(Work, { n: 2 }, { ...meta, id: 'memo-2' });
    // A live reader's parses: the first of the very bytes published below, the second of other bytes.
    validatedEnvelopes.remember(Work.subject, 'memo-1', encoder.encode(JSON.stringify(remembered)), remembered);
    validatedEnvelopes.remember(Work.subject, 'memo-2', encoder.encode(JSON.stringify({ ...otherBytes, data: { n: 3 } })), { ...otherBytes, data: { n: 3 } });
    await broker.js.publish(Work.subject, JSON.stringify(remembered), { msgID: 'memo-1' });
    await broker.js.publish(Work.subject, JSON.stringify(otherBytes), { msgID: 'memo-2' });
    const handled: BatchItem[] = [];
    const validationsBefore = messageValidations.count;
    await consume('memo', [Work], (item) => Promise.resolve(void handled.push(item)), { validatedEnvelopes });
    await waitFor(() => (handled.length === 2 ? true : undefined), '2 handled');
    // The remembered envelope is handed on as it is; the other is parsed from its own bytes (n: 2, not 3).
    expect(handled[0]?.envelope).toBe(remembered);
    expect(handled.map(dataOf)).toEqual([{ n: 1 }, { n: 2 }]);
    // One validation (the second message's envelope, counted once per parse), none for the remembered one.
    expect(messageValidations.count - validationsBefore).toBe(1);
    expect(validatedEnvelopes.size).toBe(0);
  });

  it('dead-letters malformed JSON and schema-invalid data with the original bytes and the reason, then handles the next good message', async () => {
    const Work = work('poison');
    const observer = recordingObserver();
    const handled: number[] = [];
    await consume('poison', [Work], (item) => Promise.resolve(void handled.push(dataOf(item).n)), { observer }, { ackWaitMs: 10_000 });

    const malformed = encoder.encode('{"specversion":"1.0", oops');
    const invalid = encoder.encode(JSON.stringify({ ...createEnvelope(Work, { n: 1 }, meta), data: { n: 'not a number' } }));
    await broker.js.publish(Work.subject, malformed, { msgID: 'poison-malformed' });
    await broker.js.publish(Work.subject, invalid, { msgID: 'poison-invalid' });
    await broker.publisher.publish(Work, { n: 42 }, meta);

    await waitFor(() => (handled.length === 1 ? true : undefined), 'the good message');
    expect(handled).toEqual([42]);
    const [first, second] = await awaitDeadLetters(Work.subject, 2);
    expect(Buffer.from(first?.data ?? [])).toEqual(Buffer.from(malformed));
    expect(first?.header.get(DLQ_HEADERS.reason)).toMatch(/^malformed JSON/);
    expect(Buffer.from(second?.data ?? [])).toEqual(Buffer.from(invalid));
    expect(second?.header.get(DLQ_HEADERS.reason)).toMatch(/^invalid data for openpaw\.cmd\.poison\.Work\.v1/);
    for (const dead of [first, second]) {
      expect(dead?.header.get(DLQ_HEADERS.originalSubject)).toBe(Work.subject);
      expect(dead?.header.get(DLQ_HEADERS.deliveries)).toBe('1');
      expect(Number(dead?.header.get(DLQ_HEADERS.streamSeq))).toBeGreaterThan(0);
    }
    expect(first?.header.get(DLQ_HEADERS.originalMsgId)).toBe('poison-malformed');
    expect(observer.deadLettered.map((d) => d.subject)).toEqual([Work.subject, Work.subject]);

    // Termed, not left to be redelivered: nothing is pending long before the 10 s ack wait would expire.
    const info = await waitFor(async () => {
      const current = await broker.jsm.consumers.info(STREAMS.commands.name, 'svc-poison');
      return current.num_ack_pending === 0 ? current : undefined;
    }, 'the terms', 3_000);
    expect(info.num_redelivered).toBe(0);
  });

  it('retries a handler that keeps failing with backoff, then dead-letters it after maxDeliver with its reason', async () => {
    const Work = work('fail');
    const observer = recordingObserver();
    const attempts: { deliveryCount: number; at: number }[] = [];
    await consume(
      'fail',
      [Work],
      (item) => {
        attempts.push({ deliveryCount: item.context.deliveryCount, at: performance.now() });
        return Promise.resolve<HandlerOutcome>({ kind: 'retry', reason: 'downstream unavailable' });
      },
      { maxDeliver: 3, backoffMs: [150, 300], observer },
    );
    await broker.publisher.publish(Work, { n: 1 }, meta);

    const [dead] = await awaitDeadLetters(Work.subject, 1);
    expect(attempts.map((a) => a.deliveryCount)).toEqual([1, 2, 3]);
    const [a1, a2, a3] = attempts.map((a) => a.at) as [number, number, number];
    expect(a2 - a1).toBeGreaterThanOrEqual(140);
    expect(a3 - a2).toBeGreaterThanOrEqual(290);
    expect(dead?.header.get(DLQ_HEADERS.reason)).toBe('downstream unavailable (gave up after 3 deliveries)');
    expect(dead?.header.get(DLQ_HEADERS.deliveries)).toBe('3');
    expect(observer.handled).toEqual(['retry', 'retry', 'retry']);
    await sleep(400);
    expect(attempts).toHaveLength(3);
  });

  it('dead-letters a rejected message at once', async () => {
    const Work = work('reject');
    let calls = 0;
    await consume('reject', [Work], () => {
      calls += 1;
      return Promise.resolve<HandlerOutcome>({ kind: 'reject', reason: 'unknown workflow type' });
    });
    await broker.publisher.publish(Work, { n: 1 }, meta);
    const [dead] = await awaitDeadLetters(Work.subject, 1);
    expect(dead?.header.get(DLQ_HEADERS.reason)).toBe('unknown workflow type');
    expect(dead?.header.get(DLQ_HEADERS.deliveries)).toBe('1');
    expect(calls).toBe(1);
  });

  it('counts a thrown error as a retry: redelivered, and dead-lettered with the error message once deliveries run out', async () => {
    const Work = work('throws');
    const deliveries = new Map<number, number[]>();
    const acked: number[] = [];
    await consume(
      'throws',
      [Work],
      (item) => {
        const { n } = dataOf(item);
        deliveries.set(n, [...(deliveries.get(n) ?? []), item.context.deliveryCount]);
        if (n === 1 && item.context.deliveryCount === 1) return Promise.reject(new Error('flaky once'));
        if (n === 2) return Promise.reject(new Error('always broken'));
        acked.push(n);
        return Promise.resolve();
      },
      { maxDeliver: 2, backoffMs: [50] },
    );
    await broker.publisher.publish(Work, { n: 1 }, meta);
    await broker.publisher.publish(Work, { n: 2 }, meta);

    const [dead] = await awaitDeadLetters(Work.subject, 1);
    await waitFor(() => (acked.includes(1) ? true : undefined), 'the flaky message to succeed');
    expect(deliveries.get(1)).toEqual([1, 2]);
    expect(deliveries.get(2)).toEqual([1, 2]);
    expect(dead?.header.get(DLQ_HEADERS.reason)).toBe('always broken (gave up after 2 deliveries)');
    expect((await deadLetters(Work.subject)).length).toBe(1);
  });

  it("runs the handler in the OpenTelemetry context of the published envelope's traceparent", async () => {
    const Work = work('trace');
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const seen: { traceId?: string; spanId?: string; header?: string }[] = [];
    await consume('trace', [Work], async (item) => {
      await sleep(1); // the context survives an await
      const span = trace.getSpanContext(context.active());
      seen.push({ traceId: span?.traceId, spanId: span?.spanId, header: item.context.traceparent });
    });
    await broker.publisher.publish(Work, { n: 1 }, { ...meta, traceparent });
    await waitFor(() => (seen.length === 1 ? true : undefined), 'the handler');
    expect(seen[0]).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', header: traceparent });
  });

  it('stop() waits for the handler in flight to finish and settle before resolving', async () => {
    const Work = work('stop');
    const events: string[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const handle = await consume(
      'stop',
      [Work],
      async () => {
        events.push('handler started');
        await released;
        events.push('handler finished');
      },
      {},
      { ackWaitMs: 10_000 },
    );
    await broker.publisher.publish(Work, { n: 1 }, meta);
    await waitFor(() => (events.length === 1 ? true : undefined), 'the handler to start');

    const stopped = handle.stop().then(() => events.push('stop resolved'));
    await sleep(200);
    expect(events).toEqual(['handler started']);
    release();
    await stopped;
    expect(events).toEqual(['handler started', 'handler finished', 'stop resolved']);
    // The ack went out before stop resolved (acks are fire-and-forget, so the server books it a moment later).
    const info = await waitFor(async () => {
      const current = await broker.jsm.consumers.info(STREAMS.commands.name, 'svc-stop');
      return current.num_ack_pending === 0 ? current : undefined;
    }, 'the ack', 3_000);
    expect(info.num_pending).toBe(0);
    expect(info.num_redelivered).toBe(0);
  });

  it('stop() hands back the messages it held but had not started, so another instance takes them at once', async () => {
    const Work = work('handback');
    for (let n = 0; n < 4; n += 1) await broker.publisher.publish(Work, { n }, meta);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const first: number[] = [];
    const handle = await consume(
      'handback',
      [Work],
      async (item) => {
        first.push(dataOf(item).n);
        await released;
      },
      { concurrency: 1, prefetch: 3 },
      { ackWaitMs: 10_000 },
    );
    await waitFor(() => (first.length === 1 ? true : undefined), 'the first handler');
    await sleep(100); // the other three arrive and wait behind it
    const stopped = handle.stop();
    release();
    await stopped;
    expect(first).toEqual([0]);

    const second: number[] = [];
    const startedAt = performance.now();
    await consume('handback', [Work], (item) => Promise.resolve(void second.push(dataOf(item).n)), {}, { ackWaitMs: 10_000 });
    // Long before the 10 s ack wait: they were nak'd, not left to time out.
    await waitFor(() => (second.length === 3 ? true : undefined), 'the three held messages', 3_000);
    expect(performance.now() - startedAt).toBeLessThan(3_000);
    expect([...second].sort()).toEqual([1, 2, 3]);
  });

  it('keeps a long handler from timing out (working()) so the message is not redelivered mid-handling', async () => {
    const Work = work('slow');
    const calls: number[] = [];
    let finished = 0;
    await consume(
      'slow',
      [Work],
      async (item) => {
        calls.push(item.context.deliveryCount);
        await sleep(1_300); // 2.6 ack waits
        finished += 1;
      },
      {},
      { ackWaitMs: 500 },
    );
    await broker.publisher.publish(Work, { n: 1 }, meta);
    await waitFor(() => (finished === 1 ? true : undefined), 'the handler to finish');
    // Had the ack wait expired, the redelivered copy would be waiting behind it and start now.
    await sleep(300);
    expect(calls).toEqual([1]);
    const info = await broker.jsm.consumers.info(STREAMS.commands.name, 'svc-slow');
    expect(info.num_redelivered).toBe(0);
    expect(info.num_ack_pending).toBe(0);
  });

  it('dead-letters a subject it has no definition for, unless told to skip unknown subjects', async () => {
    const Known = work('unknown');
    const Other = defineCommand('unknown', 'Other', 1, z.object({}), 'a command nobody here handles');
    const handled: string[] = [];
    await consume('unknown', [Known], (item) => Promise.resolve(void handled.push(item.context.subject)));
    await broker.publisher.publish(Other, {}, meta);
    await broker.publisher.publish(Known, { n: 1 }, meta);
    const [dead] = await awaitDeadLetters(Other.subject, 1);
    expect(dead?.header.get(DLQ_HEADERS.reason)).toBe(`no handler for subject ${Other.subject}`);
    await waitFor(() => (handled.length === 1 ? true : undefined), 'the known message');

    const Skipped = defineCommand('skipping', 'Other', 1, z.object({}), 'skipped');
    const Wanted = work('skipping');
    await consume('skipping', [Wanted], (item) => Promise.resolve(void handled.push(item.context.subject)), {
      ignoreUnknownSubjects: true,
    });
    await broker.publisher.publish(Skipped, {}, meta);
    await broker.publisher.publish(Wanted, { n: 1 }, meta);
    await waitFor(() => (handled.includes(Wanted.subject) ? true : undefined), 'the wanted message');
    await waitFor(async () => ((await broker.jsm.consumers.info(STREAMS.commands.name, 'svc-skipping')).num_ack_pending === 0 ? true : undefined), 'acks');
    expect(await deadLetters(Skipped.subject)).toEqual([]);
    expect(handled).toEqual([Known.subject, Wanted.subject]);
  });

  it('counts its pulls: 96 messages through 16 places take at least 6 (a pull is a subscription, a request and an unsubscribe)', async () => {
    const Work = work('pulls');
    const handled: number[] = [];
    await Promise.all(Array.from({ length: 96 }, (_, n) => broker.publisher.publish(Work, { n }, meta)));
    const before = readMessageCounts();
    // concurrency 8 and its default prefetch of 8: room for 16 messages.
    await consume(
      'pulls',
      [Work],
      async (item) => {
        await sleep(2);
        handled.push(dataOf(item).n);
      },
      { concurrency: 8 },
    );
    await waitFor(() => (handled.length === 96 ? true : undefined), '96 handled');
    const { pulls, deliveries } = messageCountsSince(before);
    expect(deliveries).toBe(96);
    expect(pulls).toBeGreaterThanOrEqual(96 / 16);
    expect(pulls).toBeLessThanOrEqual(96);
  });

  it('with no prefetch, pulls for a handler that finished at once, even below half its room (it would wait with nothing held)', async () => {
    const Work = work('starve');
    const started: number[] = [];
    const releases = new Map<number, () => void>();
    await consume(
      'starve',
      [Work],
      async (item) => {
        const { n } = dataOf(item);
        started.push(n);
        await new Promise<void>((resolve) => releases.set(n, resolve));
      },
      { concurrency: 3, prefetch: 0 },
    );
    await Promise.all(Array.from({ length: 6 }, (_, n) => broker.publisher.publish(Work, { n }, meta)));
    await waitFor(() => (started.length === 3 ? true : undefined), 'three handlers running');
    // One of three places frees: below half the room, but the handler has nothing held or requested.
    releases.get(started[0] as number)?.();
    await waitFor(() => (started.length === 4 ? true : undefined), 'a fourth message started while two still run');
    for (let i = 0; i < 6; i += 1) {
      await waitFor(() => (releases.has(i) ? true : undefined), `message ${i} started`);
      releases.get(i)?.();
    }
  });

  it('pulls only what it has room for, so a second instance of the same durable shares the work', async () => {
    const Work = work('share');
    const byInstance = { a: 0, b: 0 };
    const slow = (name: 'a' | 'b') => async () => {
      byInstance[name] += 1;
      await sleep(80);
    };
    await consume('share', [Work], slow('a'), { concurrency: 1, prefetch: 1 });
    await Promise.all(Array.from({ length: 10 }, (_, n) => broker.publisher.publish(Work, { n }, meta)));
    await waitFor(() => (byInstance.a > 0 ? true : undefined), 'the first instance to start');
    // A holds one message in hand and one in reserve; the other eight are still there for B.
    await consume('share', [Work], slow('b'), { concurrency: 1, prefetch: 1 });
    await waitFor(() => (byInstance.a + byInstance.b === 10 ? true : undefined), '10 handled');
    expect(byInstance.b).toBeGreaterThanOrEqual(3);
  });
});
