import { randomUUID } from 'node:crypto';
import { Injectable, type INestApplication, Module } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { defineCommand, type Envelope, STREAMS } from '@openpaw/contracts';
import { JetStreamPublisher, OnMessage } from '@openpaw/messaging';
import { privateNatsServer, type NatsServerHandle } from '@openpaw/testing';
import { z } from 'zod';
import { startService } from './bootstrap.js';
import { ServiceMessagingModule } from './messaging.js';
import { PlatformModule } from './platform.module.js';

const Ping = defineCommand('platform-spec', 'Ping', 1, z.object({ n: z.int() }), 'A test command.');

@Injectable()
class PingHandler {
  readonly seen: number[] = [];

  @OnMessage(Ping)
  handle(envelope: Envelope<{ n: number }>): Promise<void> {
    this.seen.push(envelope.data.n);
    return Promise.resolve();
  }
}

describe('ServiceMessagingModule (real NATS)', () => {
  let nats: NatsServerHandle;
  const apps: INestApplication[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await nats.dispose();
  });

  async function boot(service: string, module: unknown): Promise<string> {
    const running = await startService({ name: service, module: module as never, defaultPort: 0, port: 0 });
    apps.push(running.app);
    return running.url;
  }

  it('provisions the commands consumer of a service with no handlers yet, and reports NATS readiness', async () => {
    @Module({
      imports: [PlatformModule.forService('idle', { logLevel: 'silent' }), ServiceMessagingModule.forService('idle', { natsUrl: nats.url })],
    })
    class IdleModule {}
    const url = await boot('idle', IdleModule);

    const nc = await connect({ servers: nats.url });
    try {
      const info = await (await jetstreamManager(nc)).consumers.info(STREAMS.commands.name, 'svc-idle');
      expect(info.config.filter_subject).toBe('openpaw.cmd.idle.>');
    } finally {
      await nc.close();
    }
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ details: { nats: { status: 'up' } } });
  });

  it('counts handled messages in the shared metrics', async () => {
    @Module({
      imports: [
        PlatformModule.forService('platform-spec', { logLevel: 'silent' }),
        ServiceMessagingModule.forService('platform-spec', { natsUrl: nats.url }),
      ],
      providers: [PingHandler],
    })
    class PingModule {}
    const url = await boot('platform-spec', PingModule);

    const nc = await connect({ servers: nats.url });
    try {
      const publisher = new JetStreamPublisher(jetstream(nc));
      await publisher.publish(Ping, { n: 7 }, { source: '/test', correlationId: randomUUID() });
      const deadline = Date.now() + 10_000;
      let body = '';
      while (Date.now() < deadline) {
        body = await (await fetch(`${url}/metrics`)).text();
        if (body.includes('outcome="ack"')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(body).toContain(
        'openpaw_messages_handled_total{service="platform-spec",subject="openpaw.cmd.platform-spec.Ping.v1",outcome="ack"} 1',
      );
      expect(body).toContain('openpaw_handler_duration_seconds_count{service="platform-spec",subject="openpaw.cmd.platform-spec.Ping.v1"} 1');
    } finally {
      await nc.close();
    }
  });
});
