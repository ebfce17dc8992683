import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { type AnyMessageDefinition, EVENT_CONSUMERS, ResearchCompleted, ResearchFailed, STREAMS } from '@openpaw/contracts';
import { type BatchItem, type ConsumerHandle, ensureConsumer, jetstreamManagerWhenReady, NATS_CONNECTION, startConsumer } from '@openpaw/messaging';
import { MessageLogContext } from '@openpaw/platform';
import type { ResearchFlowSettings } from '../config.js';
import { DeliverResearchWebhookHandler } from '../handlers/deliver-research-webhook/deliver-research-webhook.handler.js';
import { FLOW_SETTINGS } from '../ports.js';

/**
 * Durable consumers of the research events delivered to users' webhooks (FROZEN names: renaming one
 * needs a migration). One per event subject, filtered on it exactly, so the service reads only these
 * two events (its `@OnMessage` events consumer would read every event of the platform), apart from
 * the research lane and the coordinator: a slow or failing endpoint never holds up a run.
 */
export const WEBHOOK_DURABLES: ReadonlyArray<{ readonly durable: string; readonly definition: AnyMessageDefinition }> = [
  { durable: EVENT_CONSUMERS.research.webhooksCompleted.durable, definition: ResearchCompleted },
  { durable: EVENT_CONSUMERS.research.webhooksFailed.durable, definition: ResearchFailed },
];

@Injectable()
export class ResearchWebhookDeliveries implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly consumers: ConsumerHandle[] = [];

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(FLOW_SETTINGS) private readonly settings: ResearchFlowSettings,
    private readonly deliveries: DeliverResearchWebhookHandler,
    private readonly logger: MessageLogContext,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { attempts, concurrency, timeoutMs } = this.settings.webhook;
    const jsm = await jetstreamManagerWhenReady(this.nc);
    const js = jetstream(this.nc);
    for (const { durable, definition } of WEBHOOK_DURABLES) {
      await ensureConsumer(jsm, {
        stream: STREAMS.events.name,
        durable,
        filterSubject: definition.subject,
        // One more than ours: a delivery whose last attempt never settled (a crash) is still dead-lettered.
        maxDeliver: attempts + 1,
        ackWaitMs: Math.max(30_000, timeoutMs * 2),
        maxAckPending: 1_000,
      });
      this.consumers.push(
        await startConsumer(js, {
          stream: STREAMS.events.name,
          durable,
          definitions: [definition],
          concurrency,
          maxDeliver: attempts,
          handler: (item: BatchItem) => this.deliver(item),
          logger: this.logger,
        }),
      );
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.consumers.splice(0).map((c) => c.stop()));
  }

  private deliver(item: BatchItem) {
    const envelope = item.envelope;
    // Validated against its definition: ResearchCompleted and ResearchFailed both carry the run's userId.
    const data = envelope.data as { readonly userId: string };
    return this.deliveries.execute({
      eventId: envelope.id,
      type: envelope.type,
      time: envelope.time,
      userId: data.userId,
      correlationId: envelope.correlationid,
      data: envelope.data,
      attempt: item.context.deliveryCount,
    });
  }
}
