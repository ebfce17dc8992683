import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { defineCommand, STREAMS, type Envelope, type MessageData } from '@openpaw/contracts';
import { z } from 'zod';
import { KvCommandReceiptStore, RECEIPT_AFTER_MS } from '../command-receipts.js';
import { recordingLogger, startBroker, waitFor, type Broker } from '../testing/int-test-kit.js';
import { MessagingHost, MessagingModule } from './messaging.module.js';
import { OnMessage } from './on-message.decorator.js';

const Register = defineCommand('lanetest', 'Register', 1, z.object({ n: z.int() }), 'a critical-path command');
const Render = defineCommand('lanetest', 'Render', 1, z.object({ n: z.int() }), 'background work', { lane: 'slow' });
const meta = { source: '/openpaw/test', correlationId: 'run-1' };

const registered: number[] = [];
const rendersStarted: number[] = [];
let releaseRenders: () => void = () => undefined;
const rendersReleased = new Promise<void>((resolve) => (releaseRenders = resolve));

@Injectable()
class LaneHandlers {
  @OnMessage(Register)
  register(envelope: Envelope<MessageData<typeof Register>>): Promise<void> {
    registered.push(envelope.data.n);
    return Promise.resolve();
  }

  /** Holds its slot until released: a queue of slow background work. */
  @OnMessage(Render)
  async render(envelope: Envelope<MessageData<typeof Render>>): Promise<void> {
    rendersStarted.push(envelope.data.n);
    await rendersReleased;
  }
}

describe('lanes (real nats-server): background work never delays a critical command', () => {
  let broker: Broker;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(async () => {
    releaseRenders();
    await broker.dispose();
  });

  it('consumes each lane through its own durable and concurrency; a critical command is handled while renders queue; a long pickup leaves a receipt', async () => {
    @Module({
      imports: [MessagingModule.forRoot({ natsUrl: broker.url, service: 'lanetest', concurrency: 4, laneConcurrency: { slow: 1 }, logger: recordingLogger() })],
      providers: [LaneHandlers],
    })
    class LaneApp {}

    const app = await NestFactory.createApplicationContext(LaneApp, { logger: false });
    try {
      // Ten renders queue on the `slow` lane (one at a time, all blocked) before the critical command.
      const renders: Array<{ readonly id: string }> = [];
      for (let n = 1; n <= 10; n += 1) renders.push(await broker.publisher.publish(Render, { n }, meta));
      const command = await broker.publisher.publish(Register, { n: 42 }, meta);
      await waitFor(() => (registered.includes(42) ? true : undefined), 'the critical command handled while every render waits');
      expect(rendersStarted).toEqual([1]);

      // The critical lane acks the renders it skips as it reads them: wait until it has read them all.
      const [critical, slow] = await waitFor(async () => {
        const infos = await Promise.all([
          broker.jsm.consumers.info(STREAMS.commands.name, 'svc-lanetest'),
          broker.jsm.consumers.info(STREAMS.commands.name, 'svc-lanetest-slow'),
        ]);
        return infos[0].num_ack_pending + infos[0].num_pending === 0 ? infos : undefined;
      }, 'the critical lane past the renders', 10_000);
      expect(critical.config.filter_subject).toBe('openpaw.cmd.lanetest.>');
      expect(slow.config.filter_subject).toBe(Render.subject);
      // The critical lane skipped the renders (acked, not dead-lettered); the slow lane holds them.
      expect(critical.num_ack_pending + critical.num_pending).toBe(0);
      expect(slow.num_pending + slow.num_ack_pending).toBe(10);
      const backlogs = await app.get(MessagingHost).laneBacklogs();
      expect(backlogs).toEqual(expect.arrayContaining([expect.objectContaining({ lane: 'slow', durable: 'svc-lanetest-slow' })]));

      // The first render, still in its handler after RECEIPT_AFTER_MS, has a receipt stamped with its
      // pickup; the critical command, answered at once, needs none (no step timer fires that soon).
      const receipts = await KvCommandReceiptStore.open(broker.jsm);
      const receipt = await waitFor(() => receipts.lookup(renders[0]?.id ?? ''), 'a receipt for the render still being handled', 10_000);
      expect(receipt).toMatchObject({ service: 'lanetest', lane: 'slow', deliveries: 1 });
      expect(Date.now() - Date.parse(receipt.pickedUpAt)).toBeGreaterThanOrEqual(RECEIPT_AFTER_MS);
      expect(await receipts.lookup(command.id)).toBeUndefined();
      const dlq = await broker.jsm.streams.info(STREAMS.deadLetters.name).catch(() => undefined);
      expect(dlq?.state.messages ?? 0).toBe(0);
    } finally {
      releaseRenders();
      await app.close();
    }
  });
});
