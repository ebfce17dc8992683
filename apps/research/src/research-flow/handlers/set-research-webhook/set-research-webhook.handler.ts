import { Inject, Injectable } from '@nestjs/common';
import type { MessageData, SetResearchWebhook } from '@openpaw/contracts';
import { FLOW_WEBHOOKS } from '../../ports.js';
import type { WebhookStore } from '../../webhooks/webhook-store.js';

/** Keeps (or removes) a user's webhook; an older or repeated setting changes nothing, so any order and any redelivery end the same. */
@Injectable()
export class SetResearchWebhookHandler {
  constructor(@Inject(FLOW_WEBHOOKS) private readonly webhooks: WebhookStore) {}

  async execute(data: MessageData<typeof SetResearchWebhook>): Promise<void> {
    await this.webhooks.set({ userId: data.userId, url: data.url, sealedSecret: data.sealedSecret, version: data.version });
  }
}
