import { deadLetterSubjectOf, defineCommand, STREAMS } from '@openpaw/contracts';
import { z } from 'zod';
import { DLQ_HEADERS, startConsumer, type ConsumerHandle } from './consumer.js';
import { commandsConsumer, recordingLogger, startBroker, storedMessages, waitFor, type Broker } from './testing/int-test-kit.js';
import type { BatchItem, HandlerOutcome } from './ports.js';

const meta = { source: '/openpaw/test', correlationId: 'run-1' };
const encoder = new TextEncoder();
const nOf = (item: BatchItem): number => (item.envelope.data as { n: number }).n;

describe('startConsumer with a batch handler (real nats-server)', () => {
  let broker: Broker;
  const handles: ConsumerHandle[] = [];

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.stop()));
  });

  afterAll(async () => {
    await broker.dispose();
  });

  it('hands messages published at once over in batches of more than one, and applies each outcome to its own message', async () => {
    const Input = defineCommand('batch', 'Input', 1, z.object({ n: z.int() }), 'test command');
    const batchSizes: number[] = [];
    const deliveries = new Map<number, number[]>();
    const { stream, durable } = await commandsConsumer(broker, 'batch');
    handles.push(
      await startConsumer(broker.js, {
        stream,
        durable,
        definitions: [Input],
        maxBatch: 50,
        backoffMs: [50],
        maxDeliver: 3,
        logger: recordingLogger(),
        batchHandler: (items) => {
          batchSizes.push(items.length);
          return Promise.resolve(
            items.map((item): HandlerOutcome => {
              const n = nOf(item);
              deliveries.set(n, [...(deliveries.get(n) ?? []), item.context.deliveryCount]);
              if (n % 10 === 3) return { kind: 'reject', reason: `rejected ${n}` };
              if (n % 10 === 7 && item.context.deliveryCount === 1) return { kind: 'retry', reason: 'later' };
              return { kind: 'ack' };
            }),
          );
        },
      }),
    );
    // One poison message among them: it is dead-lettered and the rest of its batch is handled.
    await broker.js.publish(Input.subject, encoder.encode('not json'), { msgID: 'batch-poison' });
    await Promise.all(Array.from({ length: 100 }, (_, n) => broker.publisher.publish(Input, { n }, meta)));

    await waitFor(
      () =>
        deliveries.size === 100 && [...deliveries.entries()].every(([n, d]) => n % 10 !== 7 || d.length === 2) ? true : undefined,
      'all 100 handled and the retried ones redelivered',
    );
    expect(Math.max(...batchSizes)).toBeGreaterThan(1);
    expect(batchSizes.every((size) => size <= 50)).toBe(true);

    for (const [n, counts] of deliveries) {
      expect({ n, counts }).toEqual({ n, counts: n % 10 === 7 ? [1, 2] : [1] });
    }
    const dead = await waitFor(async () => {
      const found = await storedMessages(broker.jsm, STREAMS.deadLetters.name, deadLetterSubjectOf(Input.subject));
      return found.length === 11 ? found : undefined;
    }, '11 dead letters');
    const reasons = dead.map((m) => m.header.get(DLQ_HEADERS.reason));
    expect(reasons.filter((r) => r.startsWith('malformed JSON'))).toHaveLength(1);
    expect(reasons.filter((r) => r.startsWith('rejected ')).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `rejected ${i * 10 + 3}`).sort(),
    );
    await waitFor(async () => {
      const current = await broker.jsm.consumers.info(stream, durable);
      return current.num_ack_pending === 0 && current.num_pending === 0 ? current : undefined;
    }, 'everything settled');
  });

  it('retries every message of a batch whose handler throws', async () => {
    const Input = defineCommand('batchthrow', 'Input', 1, z.object({ n: z.int() }), 'test command');
    const seen: { n: number; deliveryCount: number }[] = [];
    let calls = 0;
    const { stream, durable } = await commandsConsumer(broker, 'batchthrow');
    handles.push(
      await startConsumer(broker.js, {
        stream,
        durable,
        definitions: [Input],
        maxBatch: 10,
        backoffMs: [50],
        logger: recordingLogger(),
        batchHandler: (items) => {
          calls += 1;
          for (const item of items) seen.push({ n: nOf(item), deliveryCount: item.context.deliveryCount });
          if (calls === 1) return Promise.reject(new Error('transaction rolled back'));
          return Promise.resolve(items.map((): HandlerOutcome => ({ kind: 'ack' })));
        },
      }),
    );
    await broker.publisher.publish(Input, { n: 1 }, meta);
    await waitFor(() => (seen.some((s) => s.deliveryCount === 2) ? true : undefined), 'a redelivery');
    expect(seen).toEqual([
      { n: 1, deliveryCount: 1 },
      { n: 1, deliveryCount: 2 },
    ]);
  });

  it('runs the work a handler registers for after the settle in the tick of the acks: both leave in one write to the server', async () => {
    const Relayed = defineCommand('aftersettle', 'Relayed', 1, z.object({ n: z.int() }), 'test command');
    // nats.js writes everything queued in one tick with one send on its transport (not in its types).
    const transport = (broker.nc as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport;
    const frames: string[] = [];
    const send = transport.send.bind(transport);
    transport.send = (frame: Uint8Array): void => {
      frames.push(new TextDecoder().decode(frame));
      send(frame);
    };
    const ran: number[] = [];
    const { stream, durable } = await commandsConsumer(broker, 'aftersettle');
    try {
      handles.push(
        await startConsumer(broker.js, {
          stream,
          durable,
          definitions: [Relayed],
          maxBatch: 10,
          backoffMs: [20],
          logger: recordingLogger(),
          batchHandler: async (items, afterSettled) => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            afterSettled(() => {
              for (const item of items) {
                ran.push(nOf(item));
                broker.nc.publish(`after.settle.${nOf(item)}`, encoder.encode('relayed'));
              }
            });
            // A retried batch still runs what its handler registered (its commits already owe it).
            return items.map((item): HandlerOutcome => (nOf(item) === 2 && item.context.deliveryCount === 1 ? { kind: 'retry', reason: 'once' } : { kind: 'ack' }));
          },
        }),
      );
      await broker.publisher.publish(Relayed, { n: 1 }, meta);
      await waitFor(() => (ran.includes(1) ? true : undefined), 'the first batch relayed');
      await broker.publisher.publish(Relayed, { n: 2 }, meta);
      await waitFor(() => (ran.filter((n) => n === 2).length === 2 ? true : undefined), 'the retried batch relayed twice');
      await broker.nc.flush();
    } finally {
      transport.send = send;
    }
    const relayFrames = frames.filter((frame) => frame.includes('after.settle.1'));
    expect(relayFrames).toHaveLength(1);
    const frame = relayFrames[0] ?? '';
    expect(frame).toContain('+ACK');
    expect(frame.indexOf('+ACK')).toBeLessThan(frame.indexOf('after.settle.1'));
    expect(frames.some((f) => f.includes('after.settle.2') && f.includes('-NAK'))).toBe(true);
  });
});
