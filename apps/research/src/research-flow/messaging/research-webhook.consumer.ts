import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, type MessageData, RESEARCH_WEBHOOK_TEST_EVENT_TYPE, ResearchWebhookSet, SetResearchWebhook, TestResearchWebhook } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage } from '@openpaw/messaging';
import { DeliverResearchWebhookHandler } from '../handlers/deliver-research-webhook/deliver-research-webhook.handler.js';
import { SetResearchWebhookHandler } from '../handlers/set-research-webhook/set-research-webhook.handler.js';
import { RESEARCH_FLOW_SOURCE } from './research-flow.consumer.js';

/** Users' webhook registrations and test deliveries (spec 05), commands from the gateway; research events' deliveries are `ResearchWebhookDeliveries`'. */
@Injectable()
export class ResearchWebhookConsumer {
  constructor(
    private readonly settings: SetResearchWebhookHandler,
    private readonly deliveries: DeliverResearchWebhookHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  /**
   * Stored, then said so (`ResearchWebhookSet`): the gateway's `PUT /research/webhook?wait=` answers once
   * the setting is in force, so no event of the user is handled (and acked) before it. A redelivery
   * stores nothing new and says so again.
   */
  @OnMessage(SetResearchWebhook)
  async onSet(envelope: Envelope<MessageData<typeof SetResearchWebhook>>): Promise<HandlerOutcome> {
    const { userId, version } = envelope.data;
    await this.settings.execute(envelope.data);
    await this.publisher.publish(
      ResearchWebhookSet,
      { userId, version },
      { source: RESEARCH_FLOW_SOURCE, correlationId: envelope.correlationid, causationId: envelope.id, userId, subject: userId },
    );
    return { kind: 'ack' };
  }

  /** The same signed delivery as a research event's, once: its attempt is reported like any other. */
  @OnMessage(TestResearchWebhook)
  async onTest(envelope: Envelope<MessageData<typeof TestResearchWebhook>>): Promise<HandlerOutcome> {
    const { userId, eventId, requestedAt } = envelope.data;
    return this.deliveries.execute({
      eventId,
      type: RESEARCH_WEBHOOK_TEST_EVENT_TYPE,
      time: requestedAt,
      userId,
      correlationId: envelope.correlationid,
      data: { test: true, message: 'A test delivery from OpenPaw: your webhook is reachable and can check the signature.' },
      attempt: 1,
      once: true,
    });
  }
}
