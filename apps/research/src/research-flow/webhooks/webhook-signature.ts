import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers of a webhook delivery (documented for receivers in the gateway's `PUT /research/webhook`). */
export const WEBHOOK_HEADERS = {
  signature: 'x-openpaw-signature',
  timestamp: 'x-openpaw-timestamp',
  eventId: 'x-openpaw-event-id',
} as const;

/**
 * `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`: the timestamp is signed with the body,
 * so a receiver that refuses old timestamps cannot be replayed an old delivery under a new one.
 */
export function webhookSignature(secret: string, timestampSeconds: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')}`;
}

/** What a receiver does: the signature matches and the timestamp is within `toleranceSeconds` of now. */
export function verifyWebhookSignature(secret: string, header: string, timestampSeconds: number, body: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  if (!Number.isInteger(timestampSeconds) || Math.abs(nowSeconds - timestampSeconds) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, timestampSeconds, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
