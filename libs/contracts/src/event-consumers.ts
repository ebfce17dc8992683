import type { AnyMessageDefinition } from './message-definition.js';
import { AssetVersionCreated, VideoRendered } from './messages/assets.js';
import { ResearchCompleted, ResearchFailed } from './messages/research-flow.js';
import { ResearchProviderKeyTested } from './messages/research-keys.js';
import { ResearchWebhookAttempted } from './messages/research-webhook.js';
import { RunEnded } from './messages/run-ended.js';
import { RunStateChanged, RunStateChangedV2 } from './messages/workflow.js';
import { SUBJECT_ROOT } from './subjects.js';

/** A durable consumer of the events stream that a service's code creates. */
export interface EventConsumerDeclaration {
  /** FROZEN once deployed: the consumer's position in the events stream (renaming it replays or skips events). */
  readonly durable: string;
  /** What it reads (nats-server 2.9: one filter subject per consumer); events of the filter it does not handle are skipped. */
  readonly filterSubject: string;
  /** The events it handles. */
  readonly definitions: readonly AnyMessageDefinition[];
}

/**
 * The durable consumers of the events stream, by service (the coordinator's are one per context of
 * its sagas' inputs: `coordinatorEventsDurableOf`). The code that creates each consumer takes its
 * name from here, and so do the service's NATS permissions (`deploy/src/nats-credentials.ts`): a
 * service may create, read and take from these durables on the events stream and no other consumer,
 * so it cannot move another service's position in the stream nor read events through it.
 */
export const EVENT_CONSUMERS = {
  gateway: {
    /** The run projection (RunStateChanged v2, and v1 during a rolling upgrade). */
    runProjection: { durable: 'gateway-projection', filterSubject: `${SUBJECT_ROOT}.evt.workflow.>`, definitions: [RunStateChangedV2, RunStateChanged] },
    /** The asset projection (other asset events are skipped). */
    assetProjection: { durable: 'gateway-asset-projection', filterSubject: `${SUBJECT_ROOT}.evt.asset.>`, definitions: [AssetVersionCreated, VideoRendered] },
    /** The research service's reports of webhook delivery attempts. */
    researchWebhookAttempts: { durable: 'gateway-research-webhook-attempts', filterSubject: ResearchWebhookAttempted.subject, definitions: [ResearchWebhookAttempted] },
    /** The research service's reports of provider key tests. */
    researchKeyTests: { durable: 'gateway-research-key-tests', filterSubject: ResearchProviderKeyTested.subject, definitions: [ResearchProviderKeyTested] },
  },
  research: {
    /** Webhook deliveries of completed research (one durable per subject: a slow endpoint never holds up the other). */
    webhooksCompleted: { durable: 'research-webhooks-completed', filterSubject: ResearchCompleted.subject, definitions: [ResearchCompleted] },
    webhooksFailed: { durable: 'research-webhooks-failed', filterSubject: ResearchFailed.subject, definitions: [ResearchFailed] },
    /** Runs' ends, for the paper-list retention. */
    paperSetEnds: { durable: 'research-paper-set-ends', filterSubject: RunEnded.subject, definitions: [RunEnded] },
  },
} as const satisfies Readonly<Record<string, Readonly<Record<string, EventConsumerDeclaration>>>>;

/** The coordinator's durable consumer of one context's events (`openpaw.evt.<context>.>`). FROZEN. */
export function coordinatorEventsDurableOf(context: string): string {
  return `coordinator-evt-${context}`;
}

/** The events-stream durables a service's code creates, outside the coordinator (whose are per context). */
export function eventConsumersOf(service: string): readonly EventConsumerDeclaration[] {
  const declared: Readonly<Record<string, Readonly<Record<string, EventConsumerDeclaration>>>> = EVENT_CONSUMERS;
  return Object.values(declared[service] ?? {});
}
