import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import { type Envelope, type MessageData, ResearchWebhookSet } from '@openpaw/contracts';
import { NATS_CONNECTION } from '@openpaw/messaging';
import { CommandReplies } from '../../runs/command-replies.js';

type WebhookSet = Envelope<MessageData<typeof ResearchWebhookSet>>;

/** The research service's word that a webhook setting is in force, for `PUT` / `DELETE /research/webhook?wait=` (see `CommandReplies`): named by user and version. */
@Injectable()
export class ResearchWebhookSetReplies extends CommandReplies<WebhookSet> {
  constructor(@Inject(NATS_CONNECTION) nc: NatsConnection) {
    super(nc, [ResearchWebhookSet], ResearchWebhookSetReplies.name);
  }

  /** The id a setting is awaited by: its user and version (each `SetResearchWebhook` has a version of its own). */
  static settingId(userId: string, version: number): string {
    return `${userId}\u0000${version}`;
  }

  protected override correlationIdOf(reply: WebhookSet): string {
    return ResearchWebhookSetReplies.settingId(reply.data.userId, reply.data.version);
  }
}
