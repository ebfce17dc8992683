import { z } from 'zod';
import { defineCommand } from '../message-definition.js';
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
    /** The signing secret, sealed like a provider key (`OPENPAW_KEY_ENCRYPTION_KEY`, bound to the user); null with `url: null`. */
    sealedSecret: sealedKey.nullable(),
    /** When the user set it (epoch ms): the latest setting wins, whatever order the commands arrive in. */
    version: z.int().positive(),
  }),
  "Register (url) or remove (null) a user's research webhook. Idempotent: an older or repeated setting changes nothing.",
);
