import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, EVENT_CONSUMERS, type MessageData, ResearchWebhookAttempted } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { MessageLogContext, MetricsMessagingObserver } from '@openpaw/platform';
import { ResearchReportConsumer } from '../research-report-consumer.js';
import { ResearchWebhookRegistrations } from './research-webhook-registrations.js';

/** FROZEN: the durable is this consumer's position in the events stream; renaming it replays the stream's attempts (harmless: the newest wins, but slow). */
export const WEBHOOK_ATTEMPTS_DURABLE = EVENT_CONSUMERS.gateway.researchWebhookAttempts.durable;

/** Records the research service's reports of webhook delivery attempts on the users' registrations, for `GET /research/webhook`. */
@Injectable()
export class ResearchWebhookAttemptsConsumer extends ResearchReportConsumer<typeof ResearchWebhookAttempted> {
  constructor(
    @Inject(NATS_CONNECTION) nc: NatsConnection,
    private readonly registrations: ResearchWebhookRegistrations,
    observer: MetricsMessagingObserver,
    logs: MessageLogContext,
  ) {
    super(nc, ResearchWebhookAttempted, WEBHOOK_ATTEMPTS_DURABLE, observer, logs);
  }

  protected async apply(envelope: Envelope<MessageData<typeof ResearchWebhookAttempted>>): Promise<void> {
    const recorded = await this.registrations.recordAttempt(envelope.data);
    // Not recorded: an attempt for a registration replaced or removed since, or older than the one shown.
    this.logs.logger.debug({ eventId: envelope.data.eventId, outcome: envelope.data.outcome, recorded }, 'research webhook attempt');
  }
}
