import { Inject, Injectable } from '@nestjs/common';
import { ResearchWebhookAttempted } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher } from '@openpaw/messaging';
import type { Clock } from '@openpaw/providers';
import { RESEARCH_CLOCK } from '../../../ports.js';
import { FLOW_SETTINGS, FLOW_WEBHOOK_SECRETS, FLOW_WEBHOOK_SENDER, FLOW_WEBHOOKS, type WebhookSecretOpener } from '../../ports.js';
import type { ResearchFlowSettings } from '../../config.js';
import { RESEARCH_FLOW_SOURCE } from '../../messaging/research-flow.consumer.js';
import type { WebhookSender } from '../../webhooks/webhook-sender.js';
import { WEBHOOK_HEADERS, webhookSignature } from '../../webhooks/webhook-signature.js';
import type { StoredWebhook, WebhookStore } from '../../webhooks/webhook-store.js';

/** A research lifecycle event (`ResearchCompleted` / `ResearchFailed`) to hand to its user's webhook. */
export interface ResearchEventDelivery {
  readonly eventId: string;
  readonly type: string;
  readonly time: string;
  readonly userId: string;
  /** The research run the event is about (the envelope's correlation id). */
  readonly correlationId: string;
  readonly data: unknown;
  /** JetStream delivery count of this attempt (1 for the first). */
  readonly attempt: number;
  /** A test delivery: one attempt, never retried or dead-lettered (the user sees how it went and may test again). */
  readonly once?: boolean;
}

/**
 * One attempt to deliver a research event to its user's webhook, if they registered one: the body
 * `{id, type, createdAt, data}`, signed with their secret over the timestamp and the body. A failed
 * attempt worth repeating is retried by the consumer after the configured backoff (the message waits
 * in JetStream, holding up nothing else); past the configured attempts, or refused by the endpoint
 * (4xx, a redirect, a private address), it is dead-lettered with the reason. Receivers dedupe by the event id: an attempt that reached them may be repeated.
 * Each attempt is reported as `ResearchWebhookAttempted` (the gateway shows the last one to the
 * user), before the event is settled: a report that cannot be published leaves the event to be
 * delivered again rather than its status unknown.
 */
@Injectable()
export class DeliverResearchWebhookHandler {
  constructor(
    @Inject(FLOW_WEBHOOKS) private readonly webhooks: WebhookStore,
    @Inject(FLOW_WEBHOOK_SECRETS) private readonly secrets: WebhookSecretOpener,
    @Inject(FLOW_WEBHOOK_SENDER) private readonly sender: WebhookSender,
    @Inject(FLOW_SETTINGS) private readonly settings: ResearchFlowSettings,
    @Inject(RESEARCH_CLOCK) private readonly clock: Clock,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  async execute(event: ResearchEventDelivery): Promise<HandlerOutcome> {
    const webhook = await this.webhooks.find(event.userId);
    // Events from before the registration are not delivered (a consumer created later replays the stream's history).
    if (webhook === undefined || Date.parse(event.time) < webhook.registeredAt) return { kind: 'ack' };
    const attemptedAt = new Date(this.clock.now()).toISOString();
    const outcome = await this.attempt(event, webhook);
    const lastAttempt = event.once === true || event.attempt >= this.settings.webhook.attempts;
    await this.publisher.publish(
      ResearchWebhookAttempted,
      {
        userId: event.userId,
        webhookVersion: webhook.registeredAt,
        eventId: event.eventId,
        eventType: event.type,
        attempt: event.attempt,
        attemptedAt,
        outcome: outcome.kind === 'ack' ? 'delivered' : outcome.kind === 'retry' && !lastAttempt ? 'retrying' : 'failed',
        reason: outcome.kind === 'ack' ? null : outcome.reason.slice(0, 1_000),
      },
      { source: RESEARCH_FLOW_SOURCE, correlationId: event.correlationId, causationId: event.eventId, userId: event.userId, subject: event.userId },
    );
    return event.once === true ? { kind: 'ack' } : outcome;
  }

  private async attempt(event: ResearchEventDelivery, webhook: StoredWebhook): Promise<HandlerOutcome> {
    let secret: string;
    try {
      secret = this.secrets.open(event.userId, webhook.sealedSecret);
    } catch (error) {
      return { kind: 'reject', reason: `webhook secret of ${event.userId} cannot be opened: ${error instanceof Error ? error.message : String(error)}` };
    }
    const body = JSON.stringify({ id: event.eventId, type: event.type, createdAt: event.time, data: event.data });
    const timestamp = Math.floor(this.clock.now() / 1000);
    const attempt = await this.sender.send({
      url: webhook.url,
      body,
      headers: { [WEBHOOK_HEADERS.signature]: webhookSignature(secret, timestamp, body), [WEBHOOK_HEADERS.timestamp]: String(timestamp), [WEBHOOK_HEADERS.eventId]: event.eventId },
    });
    switch (attempt.kind) {
      case 'delivered':
        return { kind: 'ack' };
      case 'refused':
        return { kind: 'reject', reason: `webhook ${webhook.url} refused event ${event.eventId}: ${attempt.reason}` };
      case 'retry': {
        const backoff = this.settings.webhook.backoffMs;
        const delayMs = backoff[Math.min(event.attempt, backoff.length) - 1] ?? 0;
        return { kind: 'retry', reason: `webhook ${webhook.url}: ${attempt.reason}`, delayMs };
      }
    }
  }
}
