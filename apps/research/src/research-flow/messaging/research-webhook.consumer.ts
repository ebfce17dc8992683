import { Injectable } from '@nestjs/common';
import { type Envelope, type MessageData, ResearchCompleted, ResearchFailed, SetResearchWebhook } from '@openpaw/contracts';
import { type HandlerOutcome, type MessageContext, OnMessage } from '@openpaw/messaging';
import { DeliverResearchWebhookHandler } from '../handlers/deliver-research-webhook/deliver-research-webhook.handler.js';
import { SetResearchWebhookHandler } from '../handlers/set-research-webhook/set-research-webhook.handler.js';

/**
 * Users' research webhooks (spec 05): their registrations (a command from the gateway) and the
 * lifecycle events delivered to them. The events come through the service's events consumer, apart
 * from the research lane and the coordinator: a slow or failing endpoint never holds up a run.
 */
@Injectable()
export class ResearchWebhookConsumer {
  constructor(
    private readonly settings: SetResearchWebhookHandler,
    private readonly deliveries: DeliverResearchWebhookHandler,
  ) {}

  @OnMessage(SetResearchWebhook)
  async onSet(envelope: Envelope<MessageData<typeof SetResearchWebhook>>): Promise<HandlerOutcome> {
    await this.settings.execute(envelope.data);
    return { kind: 'ack' };
  }

  @OnMessage(ResearchCompleted)
  onCompleted(envelope: Envelope<MessageData<typeof ResearchCompleted>>, context: MessageContext): Promise<HandlerOutcome> {
    return this.deliveries.execute({ eventId: envelope.id, type: envelope.type, time: envelope.time, userId: envelope.data.userId, data: envelope.data, attempt: context.deliveryCount });
  }

  @OnMessage(ResearchFailed)
  onFailed(envelope: Envelope<MessageData<typeof ResearchFailed>>, context: MessageContext): Promise<HandlerOutcome> {
    return this.deliveries.execute({ eventId: envelope.id, type: envelope.type, time: envelope.time, userId: envelope.data.userId, data: envelope.data, attempt: context.deliveryCount });
  }
}
