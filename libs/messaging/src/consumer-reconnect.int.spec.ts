import { createEnvelope, defineCommand } from '@openpaw/contracts';
import { z } from 'zod';
import { ConnectionState } from './connection.js';
import { startConsumer, type ConsumerHandle } from './consumer.js';
import { commandsConsumer, recordingLogger, startBroker, waitFor, type Broker } from './testing/int-test-kit.js';
import { JetStreamPublisher } from './publisher.js';

const Work = defineCommand('reconnect', 'Work', 1, z.object({ n: z.int() }), 'test command');
const meta = { source: '/openpaw/test', correlationId: 'run-1' };

describe('startConsumer across a nats-server restart (real nats-server)', () => {
  let broker: Broker;
  let handle: ConsumerHandle | undefined;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(async () => {
    await handle?.stop();
    await broker.dispose();
  });

  it('resumes pulling once the connection comes back, and the connection state follows', async () => {
    const handled: number[] = [];
    const state = new ConnectionState(broker.nc);
    const { stream, durable } = await commandsConsumer(broker, 'reconnect');
    handle = await startConsumer(broker.js, {
      stream,
      durable,
      definitions: [Work],
      logger: recordingLogger(),
      handler: (item) => Promise.resolve(void handled.push((item.envelope.data as { n: number }).n)),
    });
    await broker.publisher.publish(Work, { n: 1 }, meta);
    await waitFor(() => (handled.length === 1 ? true : undefined), 'the first message');
    expect(state.isConnected()).toBe(true);

    const restarted = broker.restart();
    await waitFor(() => (state.isConnected() ? undefined : true), 'the disconnect');
    await restarted;
    await waitFor(() => (state.isConnected() ? true : undefined), 'the reconnect (about 1 s: the reconnect wait)');
    // JetStream may take a moment longer than the socket: retry the publish with a short timeout
    // (the same envelope each time, so a retry of a publish that did land is dropped as a duplicate).
    const quick = new JetStreamPublisher(broker.js, { timeoutMs: 250 });
    const second = createEnvelope(Work, { n: 2 }, meta);
    await waitFor(() => quick.publishEnvelope(second).then(() => true, () => undefined), 'a publish after the restart');
    await waitFor(() => (handled.includes(2) ? true : undefined), 'the message published after the restart', 2_000);
    expect(handled).toEqual([1, 2]);
  });
});
