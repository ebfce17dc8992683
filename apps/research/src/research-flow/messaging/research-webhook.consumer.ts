import { Injectable } from '@nestjs/common';
import { type Envelope, type MessageData, SetResearchWebhook } from '@openpaw/contracts';
import { type HandlerOutcome, OnMessage } from '@openpaw/messaging';
import { SetResearchWebhookHandler } from '../handlers/set-research-webhook/set-research-webhook.handler.js';

/** Users' webhook registrations (spec 05), a command from the gateway; deliveries are `ResearchWebhookDeliveries`'. */
@Injectable()
export class ResearchWebhookConsumer {
  constructor(private readonly settings: SetResearchWebhookHandler) {}

  @OnMessage(SetResearchWebhook)
  async onSet(envelope: Envelope<MessageData<typeof SetResearchWebhook>>): Promise<HandlerOutcome> {
    await this.settings.execute(envelope.data);
    return { kind: 'ack' };
  }
}
