import { Inject, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection } from '@nats-io/nats-core';
import { defineCommand, defineEvent, deterministicUuid, STREAMS, type Envelope, type MessageData } from '@openpaw/contracts';
import { z } from 'zod';
import { recordingLogger, startBroker, storedMessages, waitFor, type Broker } from '../testing/int-test-kit.js';
import type { HandlerOutcome, MessageContext, MessagePublisher } from '../ports.js';
import { MessagingHealth, MessagingModule } from './messaging.module.js';
import { OnMessage } from './on-message.decorator.js';
import { MESSAGE_PUBLISHER, NATS_CONNECTION } from './tokens.js';

const Greet = defineCommand('greeter', 'Greet', 1, z.object({ name: z.string() }), 'test command');
const Greeted = defineEvent('greeter', 'Greeted', 1, z.object({ name: z.string() }), 'test event');
const meta = { source: '/openpaw/test', correlationId: 'run-1' };

const received: { name: string; deliveryCount: number }[] = [];
const greetedEvents: string[] = [];

@Injectable()
class GreetHandler {
  constructor(@Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher) {}

  @OnMessage(Greet)
  async greet(envelope: Envelope<MessageData<typeof Greet>>, context: MessageContext): Promise<HandlerOutcome> {
    received.push({ name: envelope.data.name, deliveryCount: context.deliveryCount });
    // Idempotent reply: the same command always yields the same event id.
    await this.publisher.publish(
      Greeted,
      { name: envelope.data.name },
      { id: deterministicUuid(envelope.id, Greeted.subject), source: '/openpaw/greeter', correlationId: envelope.correlationid, causationId: envelope.id },
    );
    return { kind: 'ack' };
  }

  @OnMessage(Greeted)
  greeted(envelope: Envelope<MessageData<typeof Greeted>>): Promise<void> {
    greetedEvents.push(envelope.data.name);
    return Promise.resolve();
  }
}

describe('MessagingModule (real nats-server, NestJS application context)', () => {
  let broker: Broker;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(async () => {
    await broker.dispose();
  });

  it('delivers a published command to the @OnMessage method, consumes events, and shuts down cleanly', async () => {
    @Module({
      imports: [MessagingModule.forRoot({ natsUrl: broker.url, service: 'greeter', concurrency: 2, logger: recordingLogger() })],
      providers: [GreetHandler],
    })
    class GreeterApp {}

    const app = await NestFactory.createApplicationContext(GreeterApp, { logger: false });
    const nc = app.get<NatsConnection>(NATS_CONNECTION);
    const health = app.get(MessagingHealth);
    try {
      expect(health.isConnected()).toBe(true);
      const command = await broker.publisher.publish(Greet, { name: 'Ada' }, meta);
      // A re-send of the same command (the envelope id is the consumer's dedup key; a new msgId gets it stored).
      await broker.publisher.publishEnvelope(command, { msgId: `${command.id}:resend` });

      await waitFor(() => (received.length === 2 && greetedEvents.length === 1 ? true : undefined), 'the command twice and the event once');
      expect(received).toEqual([
        { name: 'Ada', deliveryCount: 1 },
        { name: 'Ada', deliveryCount: 1 },
      ]);
      expect(greetedEvents).toEqual(['Ada']);
      const events = await storedMessages(broker.jsm, STREAMS.events.name, Greeted.subject);
      expect(events.map((m) => m.header.get('Nats-Msg-Id'))).toEqual([deterministicUuid(command.id, Greeted.subject)]);

      const consumers = await Promise.all([
        broker.jsm.consumers.info(STREAMS.commands.name, 'svc-greeter'),
        broker.jsm.consumers.info(STREAMS.events.name, 'svc-greeter-events'),
      ]);
      expect(consumers.map((c) => c.config.filter_subject)).toEqual(['openpaw.cmd.greeter.>', 'openpaw.evt.>']);
    } finally {
      await app.close();
    }
    expect(nc.isClosed()).toBe(true);
    expect(health.isConnected()).toBe(false);
  });

  it('runs publish-only from forRootAsync (consume: false) and exports the publisher', async () => {
    @Module({
      imports: [MessagingModule.forRootAsync({ useFactory: () => ({ natsUrl: broker.url, service: 'gateway', consume: false }) })],
    })
    class GatewayApp {}

    const app = await NestFactory.createApplicationContext(GatewayApp, { logger: false });
    try {
      const publisher = app.get<MessagePublisher>(MESSAGE_PUBLISHER);
      const envelope = await publisher.publish(Greet, { name: 'Grace' }, meta);
      const stored = await storedMessages(broker.jsm, STREAMS.commands.name, Greet.subject);
      expect(stored.map((m) => m.header.get('Nats-Msg-Id'))).toContain(envelope.id);
      await expect(broker.jsm.consumers.info(STREAMS.commands.name, 'svc-gateway')).rejects.toThrow(/consumer not found/);
    } finally {
      await app.close();
    }
  });

  it('refuses a command handler for another service at bootstrap', async () => {
    @Injectable()
    class Misplaced {
      @OnMessage(Greet)
      async greet(): Promise<void> {}
    }
    @Module({ imports: [MessagingModule.forRoot({ natsUrl: broker.url, service: 'other', logger: recordingLogger() })], providers: [Misplaced] })
    class WrongApp {}

    const app = await NestFactory.createApplicationContext(WrongApp, { logger: false, abortOnError: false }).catch(
      (error: unknown) => error,
    );
    expect(app).toBeInstanceOf(Error);
    expect((app as Error).message).toMatch(/a command of service "greeter", not of "other"/);
  });
});
