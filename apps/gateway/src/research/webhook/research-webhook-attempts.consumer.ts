import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, type MessageData, ResearchWebhookAttempted, STREAMS } from '@openpaw/contracts';
import { type ConsumerHandle, DEFAULT_MAX_DELIVER, ensureConsumer, NATS_CONNECTION, startConsumer } from '@openpaw/messaging';
import { MessageLogContext, MetricsMessagingObserver } from '@openpaw/platform';
import { ResearchWebhookRegistrations } from './research-webhook-registrations.js';

/** FROZEN: the durable is this consumer's position in the events stream; renaming it replays the stream's attempts (harmless: the newest wins, but slow). */
export const WEBHOOK_ATTEMPTS_DURABLE = 'gateway-research-webhook-attempts';

/**
 * Records the research service's reports of webhook delivery attempts on the users' registrations,
 * for `GET /research/webhook`: a durable consumer of that one event, shared by the gateway replicas.
 */
@Injectable()
export class ResearchWebhookAttemptsConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private handle: ConsumerHandle | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly registrations: ResearchWebhookRegistrations,
    private readonly observer: MetricsMessagingObserver,
    private readonly logs: MessageLogContext,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensureConsumer(await jetstreamManager(this.nc), {
      stream: STREAMS.events.name,
      durable: WEBHOOK_ATTEMPTS_DURABLE,
      filterSubject: ResearchWebhookAttempted.subject,
      maxDeliver: DEFAULT_MAX_DELIVER + 1,
      ackWaitMs: 30_000,
      maxAckPending: 1_000,
    });
    this.handle = await startConsumer(jetstream(this.nc), {
      stream: STREAMS.events.name,
      durable: WEBHOOK_ATTEMPTS_DURABLE,
      definitions: [ResearchWebhookAttempted],
      // Order does not matter: a registration only takes an attempt at least as recent as its own.
      concurrency: 4,
      handler: (item) => this.apply(item.envelope as Envelope<MessageData<typeof ResearchWebhookAttempted>>),
      observer: this.observer,
      logger: this.logs,
    });
  }

  private async apply(envelope: Envelope<MessageData<typeof ResearchWebhookAttempted>>): Promise<void> {
    const recorded = await this.registrations.recordAttempt(envelope.data);
    // Not recorded: an attempt for a registration replaced or removed since, or older than the one shown.
    this.logs.logger.debug({ eventId: envelope.data.eventId, outcome: envelope.data.outcome, recorded }, 'research webhook attempt');
  }

  /** Stops pulling and lets the reports in flight finish, while the database is still open. */
  async onModuleDestroy(): Promise<void> {
    await this.handle?.stop();
    this.handle = undefined;
  }
}
