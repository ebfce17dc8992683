import { freeText, RESEARCH_WEBHOOK_LIMITS, RESEARCH_WEBHOOK_OUTCOMES } from '@openpaw/contracts';
import { z } from 'zod';

/** The header that carries the signature, and how it is made (also documented in the API). */
export const WEBHOOK_SIGNATURE = {
  header: 'X-OpenPaw-Signature',
  timestampHeader: 'X-OpenPaw-Timestamp',
  eventIdHeader: 'X-OpenPaw-Event-Id',
  scheme: 'sha256=hex(HMAC-SHA256(secret, `${timestamp}.${body}`)); reject timestamps older than 5 minutes and event ids seen before',
} as const;

export const putWebhookBody = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'an http(s) URL' })
    .max(RESEARCH_WEBHOOK_LIMITS.urlChars)
    .refine((raw) => {
      // Runs after a failed URL check too (zod reports every issue): only a parsed URL can carry credentials.
      const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
      return parsed === undefined || (parsed.username === '' && parsed.password === '');
    }, 'no credentials in the URL: the signature authenticates the call'),
  /** Your own signing secret; omitted: one is generated and answered once. */
  secret: freeText().min(24, 'a signing secret is at least 24 characters').max(200).optional(),
});

/** Longest `?wait` (seconds) of `PUT` / `DELETE /research/webhook`: the research service stores a setting in moments. */
export const MAX_WEBHOOK_WAIT_SECONDS = 30;
/** `PUT` / `DELETE /research/webhook?wait=` */
export const webhookWaitQuery = z.object({
  wait: z.coerce
    .number()
    .min(0)
    .max(MAX_WEBHOOK_WAIT_SECONDS)
    .optional()
    .describe(
      `Seconds (0..${MAX_WEBHOOK_WAIT_SECONDS}) to wait until the research service has taken the setting (default 0): then every research event handled after the answer follows it (\`active: true\`).`,
    ),
});

export const webhookRegistered = z.object({
  url: z.string(),
  /** The research service has taken this registration (`?wait=`): every research event handled from now on is delivered to `url`. False: not confirmed within the wait (it takes effect within moments). */
  active: z.boolean(),
  /** Shown once: store it to verify the signature. */
  secret: z.string(),
  signature: z.object({ header: z.string(), timestampHeader: z.string(), eventIdHeader: z.string(), scheme: z.string() }),
  events: z.array(z.string()),
});

/** `GET /research/webhook`: the caller's webhook as registered, never its secret. */
export const webhookView = z.object({
  url: z.string(),
  /** Whether deliveries are signed with a secret (every registration has one: given, or generated and answered once by `PUT`). */
  secretSet: z.boolean(),
  /** When the current registration began (ISO 8601); replacing it with another `PUT` keeps this. */
  createdAt: z.string(),
  /** When it was last set by `PUT` (ISO 8601). */
  updatedAt: z.string(),
  events: z.array(z.string()),
  /** The latest delivery attempt reported for this registration; null until the first. */
  lastDelivery: z
    .object({
      eventId: z.string(),
      eventType: z.string(),
      /** 1 for the first attempt at that event. */
      attempt: z.int(),
      attemptedAt: z.string(),
      outcome: z.enum(RESEARCH_WEBHOOK_OUTCOMES),
      /** Why it was not delivered; null when delivered. */
      reason: z.string().nullable(),
    })
    .nullable(),
});

/** `POST /research/webhook/test`: the test event sent; its attempt shows as `lastDelivery` of `GET /research/webhook` within moments. */
export const webhookTestSent = z.object({
  eventId: z.uuid(),
  eventType: z.string(),
  requestedAt: z.string(),
});
