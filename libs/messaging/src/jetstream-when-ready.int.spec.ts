import { jetstreamManager, JetStreamApiError } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { STREAMS } from '@openpaw/contracts';
import type { NatsServerHandle } from '@openpaw/testing';
import { connectNats } from './connection.js';
import { jetstreamManagerWhenReady, whenJetStreamAnswers } from './jetstream-when-ready.js';
import { ensureConsumer, provisionStreams, serviceCommandsFilter } from './provisioning.js';
import { privateNatsServer } from './testing/int-test-kit.js';

const quiet = { onRetry: (): void => undefined };

describe('start-time JetStream calls wait while nats-server is down (real nats-server)', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    server = await privateNatsServer();
    nc = await connectNats({ servers: server.url, name: 'when-ready-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
  });

  afterAll(async () => {
    await nc.close();
    await server.dispose();
  });

  it('a consumer provisioned while the server is down for longer than a request timeout is created once it is back', async () => {
    // A short request timeout, so attempts made while the server is away fail (and are retried).
    const jsm = await jetstreamManager(nc, { timeout: 300 });
    await server.stop();
    const provisioned = ensureConsumer(jsm, {
      stream: STREAMS.commands.name,
      durable: 'svc-late',
      filterSubject: serviceCommandsFilter('late'),
      maxDeliver: 6,
      ackWaitMs: 30_000,
      maxAckPending: 100,
    });
    const manager = jetstreamManagerWhenReady(nc, quiet);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await server.restart();

    await expect(provisioned).resolves.toBe('created');
    const info = await (await manager).consumers.info(STREAMS.commands.name, 'svc-late');
    expect(info.config.filter_subject).toBe(serviceCommandsFilter('late'));
  }, 30_000);

  it('an attempt that times out is retried, and the retries are reported', async () => {
    const jsm = await jetstreamManager(nc, { timeout: 300 });
    await server.stop();
    const retries: string[] = [];
    const info = whenJetStreamAnswers('stream info', () => jsm.streams.info(STREAMS.events.name), { onRetry: (_n, error) => retries.push(error.name) });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await server.restart();
    await expect(info).resolves.toMatchObject({ config: { name: STREAMS.events.name } });
    expect(retries.length).toBeGreaterThan(0);
  }, 30_000);

  it('a refusal is not waited for: a consumer on a stream that does not exist fails at once', async () => {
    const jsm = await jetstreamManager(nc);
    const retries: unknown[] = [];
    await expect(
      whenJetStreamAnswers('consumer on nowhere', () => jsm.consumers.info('NOWHERE', 'svc-x'), { onRetry: (_n, error) => retries.push(error) }),
    ).rejects.toBeInstanceOf(JetStreamApiError);
    expect(retries).toEqual([]);
  });
});
