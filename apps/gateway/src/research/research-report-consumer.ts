import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { type AnyMessageDefinition, type Envelope, type MessageData, STREAMS } from '@openpaw/contracts';
import { type ConsumerHandle, DEFAULT_MAX_DELIVER, ensureConsumer, startConsumer } from '@openpaw/messaging';
import type { MessageLogContext, MetricsMessagingObserver } from '@openpaw/platform';

/**
 * A durable consumer, shared by the gateway replicas, of one report the research service publishes
 * about a user's setting (a webhook delivery attempt, a key test), recorded on that setting for the
 * user to see. Reports are independent of each other: the store keeps the one that applies, so
 * order does not matter.
 */
export abstract class ResearchReportConsumer<D extends AnyMessageDefinition> implements OnApplicationBootstrap, OnModuleDestroy {
  private handle: ConsumerHandle | undefined;

  protected constructor(
    private readonly nc: NatsConnection,
    private readonly definition: D,
    /** FROZEN once deployed: the consumer's position in the events stream. */
    private readonly durable: string,
    private readonly observer: MetricsMessagingObserver,
    protected readonly logs: MessageLogContext,
  ) {}

  /** Records one report. */
  protected abstract apply(envelope: Envelope<MessageData<D>>): Promise<void>;

  async onApplicationBootstrap(): Promise<void> {
    await ensureConsumer(await jetstreamManager(this.nc), {
      stream: STREAMS.events.name,
      durable: this.durable,
      filterSubject: this.definition.subject,
      maxDeliver: DEFAULT_MAX_DELIVER + 1,
      ackWaitMs: 30_000,
      maxAckPending: 1_000,
    });
    this.handle = await startConsumer(jetstream(this.nc), {
      stream: STREAMS.events.name,
      durable: this.durable,
      definitions: [this.definition],
      concurrency: 4,
      handler: (item) => this.apply(item.envelope as Envelope<MessageData<D>>),
      observer: this.observer,
      logger: this.logs,
    });
  }

  /** Stops pulling and lets the reports in flight finish, while the database is still open. */
  async onModuleDestroy(): Promise<void> {
    await this.handle?.stop();
    this.handle = undefined;
  }
}
