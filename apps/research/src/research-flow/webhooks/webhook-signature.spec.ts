import { createHmac } from 'node:crypto';
import { verifyWebhookSignature, webhookSignature } from './webhook-signature.js';

describe('webhook signature', () => {
  const body = '{"id":"e1","type":"openpaw.evt.research.ResearchCompleted.v1"}';

  it('is sha256= and the hex HMAC-SHA256 of "<timestamp>.<body>" with the secret', () => {
    const expected = createHmac('sha256', 'whsec_test').update(`1700000000.${body}`).digest('hex');
    expect(webhookSignature('whsec_test', 1_700_000_000, body)).toBe(`sha256=${expected}`);
  });

  it('verifies for the same secret, body and a recent timestamp only', () => {
    const signature = webhookSignature('whsec_test', 1_700_000_000, body);
    expect(verifyWebhookSignature('whsec_test', signature, 1_700_000_000, body, 1_700_000_100)).toBe(true);
    expect(verifyWebhookSignature('whsec_other', signature, 1_700_000_000, body, 1_700_000_100)).toBe(false);
    expect(verifyWebhookSignature('whsec_test', signature, 1_700_000_000, `${body} `, 1_700_000_100)).toBe(false);
    // The same delivery replayed with a fresh timestamp no longer matches; with its own, it is too old.
    expect(verifyWebhookSignature('whsec_test', signature, 1_700_000_900, body, 1_700_000_900)).toBe(false);
    expect(verifyWebhookSignature('whsec_test', signature, 1_700_000_000, body, 1_700_000_900)).toBe(false);
  });
});
