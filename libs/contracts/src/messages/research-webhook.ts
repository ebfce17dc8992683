import { z } from 'zod';
import { defineCommand, defineEvent } from '../message-definition.js';
import { sealedKey } from './research-flow.js';

/**
 * Spec 05's optional outgoing webhook per user: the gateway registers (or removes) it, the research
 * service keeps it and POSTs every `ResearchCompleted` / `ResearchFailed` of that user to it, signed
 * with the user's secret (HMAC-SHA256 over the timestamp and the body), retried with backoff.
 */
export const RESEARCH_WEBHOOK_LIMITS = {
  urlChars: 2_048,
} as const;

/** What a sealed webhook secret is bound to (with its user): the gateway seals and the research service opens with it. */
export const RESEARCH_WEBHOOK_SECRET_PURPOSE = 'research-webhook';

export const SetResearchWebhook = defineCommand(
  'research',
  'SetResearchWebhook',
  1,
  z.object({
    userId: z.string().min(1),
    /** Where to POST the user's research events; null removes the webhook. */
    url: z.url({ protocol: /^https?$/ }).max(RESEARCH_WEBHOOK_LIMITS.urlChars).nullable(),
    /** The signing secret, sealed like a provider key (to the research service's key, bound to the user); null with `url: null`. */
    sealedSecret: sealedKey.nullable(),
    /** When the user set it (epoch ms): the latest setting wins, whatever order the commands arrive in. */
    version: z.int().positive(),
  }),
  "Register (url) or remove (null) a user's research webhook. Idempotent: an older or repeated setting changes nothing.",
);

export const ResearchWebhookSet = defineEvent(
  'research',
  'ResearchWebhookSet',
  1,
  z.object({
    userId: z.string().min(1),
    /** The version of the `SetResearchWebhook` this answers (when a newer one is stored already, that one stays). */
    version: z.int().positive(),
  }),
  "The research service has taken a user's webhook setting (stored it, or holds a newer one): every research event of the user handled from now on is delivered by it.",
);

/** The `type` of a test delivery's body (`{id, type, createdAt, data}`), so a receiver can tell it from research events. */
export const RESEARCH_WEBHOOK_TEST_EVENT_TYPE = 'openpaw.research.WebhookTest';

export const TestResearchWebhook = defineCommand(
  'research',
  'TestResearchWebhook',
  1,
  z.object({
    userId: z.string().min(1),
    /** The test event's id: the body's `id`, the `X-OpenPaw-Event-Id` header and the reported attempt's `eventId`. */
    eventId: z.uuid(),
    /** When the user asked (ISO): the test's `createdAt`, and not before the registration it tests. */
    requestedAt: z.iso.datetime({ offset: true }),
  }),
  "Send one signed test event to the user's registered research webhook now, once (no retry), and report it as ResearchWebhookAttempted.",
);

/** How an attempt to deliver a research event to a user's webhook went. */
export const RESEARCH_WEBHOOK_OUTCOMES = ['delivered', 'retrying', 'failed'] as const;

export const ResearchWebhookAttempted = defineEvent(
  'research',
  'ResearchWebhookAttempted',
  1,
  z.object({
    userId: z.string().min(1),
    /** The version of the user's webhook setting the attempt was made for (its `SetResearchWebhook`'s). */
    webhookVersion: z.int().positive(),
    /** The research event delivered, and its type (`ResearchCompleted` / `ResearchFailed`). */
    eventId: z.string().min(1),
    eventType: z.string().min(1),
    /** 1 for the first attempt at this event. */
    attempt: z.int().positive(),
    attemptedAt: z.iso.datetime({ offset: true }),
    /** `delivered` (2xx), `retrying` (another attempt follows after the backoff) or `failed` (dead-lettered: refused, or out of attempts). */
    outcome: z.enum(RESEARCH_WEBHOOK_OUTCOMES),
    /** Why it was not delivered (the answer's status, a timeout, a refused address, ...); null when delivered. */
    reason: z.string().max(1_000).nullable(),
  }),
  "One attempt to deliver a research event to its user's webhook, and how it went (for the user to see their webhook's last delivery).",
);
