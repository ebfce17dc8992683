import { randomBytes, randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { type MessageData, parseEnvelope, RESEARCH_WEBHOOK_SECRET_PURPOSE, ResearchCompleted, ResearchWebhookAttempted, SetResearchWebhook, STREAMS } from '@openpaw/contracts';
import { JetStreamPublisher } from '@openpaw/messaging';
import { SecretSealer } from '@openpaw/providers/keys';
import { freshDatabase, privateNatsServer, type NatsServerHandle, waitFor } from '@openpaw/testing';
import { signAccessToken } from '../../auth/tokens.js';
import type { GatewayConfig } from '../../config.js';
import { WEBHOOK_ATTEMPTS_DURABLE } from './research-webhook-attempts.consumer.js';
import { intSpecGatewayConfig, startIntSpecGateway } from '../../testing/int-spec-gateway.js';

process.env['LOG_LEVEL'] ??= 'warn';

/** `PUT` / `GET` / `DELETE /research/webhook`: validated, the secret sealed and answered once, `SetResearchWebhook` sent, reported attempts shown (real NATS + PostgreSQL). */
describe('research webhook registration', () => {
  const encryptionKey = randomBytes(32);
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let app: INestApplication;
  let url: string;
  let config: GatewayConfig;
  const sent: MessageData<typeof SetResearchWebhook>[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
    config = intSpecGatewayConfig({ natsUrl: nats.url, databaseUrl: await freshDatabase('gateway_research_webhook') }, {
      cancelWaitMs: 1000,
      startWaitMs: 300,
      uploadMaxBytes: 64 * 1024,
      keysEnv: { OPENPAW_KEY_ENCRYPTION_KEY: encryptionKey.toString('base64') },
    });
    ({ app, url } = await startIntSpecGateway(config));
    nc = await connect({ servers: nats.url, name: 'research-webhook-int-spec' });
    nc.subscribe(SetResearchWebhook.subject, {
      callback: (_error, message: Msg) => {
        const parsed = parseEnvelope(SetResearchWebhook, message.data);
        if (parsed.ok) sent.push(parsed.envelope.data);
      },
    });
    await nc.flush();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.dispose();
  });

  const call = async (token: string, method: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${url}/research/webhook`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };

  it('registers a webhook: answers the generated secret once and sends it sealed for the caller only; DELETE sends the removal', async () => {
    const userId = `user-${randomUUID()}`;
    const token = await signAccessToken(config.jwt, userId);
    const put = await call(token, 'PUT', { url: 'https://hooks.example.com/openpaw' });
    expect(put.status).toBe(200);
    const secret = put.body['secret'] as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    expect(put.body).toMatchObject({ url: 'https://hooks.example.com/openpaw', signature: { header: 'X-OpenPaw-Signature' } });

    const registration = await waitFor(() => sent.find((s) => s.userId === userId), 'SetResearchWebhook');
    expect(registration.url).toBe('https://hooks.example.com/openpaw');
    expect(JSON.stringify(registration)).not.toContain(secret);
    const sealer = new SecretSealer(encryptionKey);
    expect(sealer.open(RESEARCH_WEBHOOK_SECRET_PURPOSE, userId, registration.sealedSecret ?? '')).toBe(secret);
    expect(() => sealer.open(RESEARCH_WEBHOOK_SECRET_PURPOSE, 'someone-else', registration.sealedSecret ?? '')).toThrow();

    const removed = await call(token, 'DELETE');
    expect(removed.status).toBe(204);
    const removal = await waitFor(() => sent.find((s) => s.userId === userId && s.url === null), 'the removal');
    expect(removal.sealedSecret).toBeNull();
    expect(removal.version).toBeGreaterThanOrEqual(registration.version);
  });

  it('keeps a secret the caller chose, and answers 400 naming the field for a bad URL or a short secret', async () => {
    const token = await signAccessToken(config.jwt, `user-${randomUUID()}`);
    const chosen = 'my-own-signing-secret-0123456789';
    expect((await call(token, 'PUT', { url: 'http://127.0.0.1:8080/hook', secret: chosen })).body['secret']).toBe(chosen);
    for (const [body, field] of [
      [{ url: 'ftp://example.com/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'https://user:pass@example.com/hook' }, 'url'],
      [{ url: 'https://example.com/hook', secret: 'short' }, 'secret'],
      [{}, 'url'],
    ] as const) {
      const answer = await call(token, 'PUT', body);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain(field);
    }
  });

  it('answers the caller’s webhook on GET without its secret, keeps createdAt across a replacing PUT, and 404s naming the fix when there is none', async () => {
    const userId = `user-${randomUUID()}`;
    const token = await signAccessToken(config.jwt, userId);
    const none = await call(token, 'GET');
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: 'webhook_not_found', message: 'no research webhook is registered for this user; PUT /research/webhook {url} registers one' });

    const first = await call(token, 'PUT', { url: 'https://hooks.example.com/first' });
    const registered = await call(token, 'GET');
    expect(registered.status).toBe(200);
    expect(registered.body).toEqual({
      url: 'https://hooks.example.com/first',
      secretSet: true,
      createdAt: expect.any(String) as unknown,
      updatedAt: registered.body['createdAt'],
      events: ['openpaw.evt.research.ResearchCompleted.v1', 'openpaw.evt.research.ResearchFailed.v1'],
      lastDelivery: null,
    });
    expect(JSON.stringify(registered.body)).not.toContain(first.body['secret'] as string);

    const chosen = 'my-own-signing-secret-for-the-second';
    await call(token, 'PUT', { url: 'https://hooks.example.com/second', secret: chosen });
    const replaced = await call(token, 'GET');
    expect(replaced.body).toMatchObject({ url: 'https://hooks.example.com/second', secretSet: true, createdAt: registered.body['createdAt'] });
    expect(Date.parse(replaced.body['updatedAt'] as string)).toBeGreaterThanOrEqual(Date.parse(registered.body['updatedAt'] as string));
    expect(JSON.stringify(replaced.body)).not.toContain(chosen);

    // Someone else's webhook is not theirs to see.
    expect((await call(await signAccessToken(config.jwt, `user-${randomUUID()}`), 'GET')).status).toBe(404);
    expect((await fetch(`${url}/research/webhook`)).status).toBe(401);

    expect((await call(token, 'DELETE')).status).toBe(204);
    expect((await call(token, 'GET')).status).toBe(404);
    await call(token, 'PUT', { url: 'https://hooks.example.com/third' });
    const again = await call(token, 'GET');
    expect(again.body['url']).toBe('https://hooks.example.com/third');
    // A registration after a removal is a new one.
    expect(Date.parse(again.body['createdAt'] as string)).toBeGreaterThanOrEqual(Date.parse(replaced.body['updatedAt'] as string));
    expect(again.body['createdAt']).not.toBe(registered.body['createdAt']);
  });

  it('gives concurrent settings of one user distinct versions: GET shows the one the research service will keep (the largest)', async () => {
    const userId = `user-${randomUUID()}`;
    const token = await signAccessToken(config.jwt, userId);
    const urls = Array.from({ length: 5 }, (_, i) => `https://hooks.example.com/concurrent-${i}`);
    const answers = await Promise.all(urls.map((hook) => call(token, 'PUT', { url: hook })));
    expect(answers.map((a) => a.status)).toEqual(urls.map(() => 200));

    const commands = await waitFor(() => {
      const mine = sent.filter((s) => s.userId === userId);
      return mine.length === urls.length ? mine : undefined;
    }, 'the five SetResearchWebhook');
    expect(new Set(commands.map((c) => c.version)).size).toBe(urls.length);
    const kept = commands.reduce((a, b) => (b.version > a.version ? b : a));
    expect((await call(token, 'GET')).body['url']).toBe(kept.url);
  });

  it('shows the latest delivery attempt the research service reported for the current registration only', async () => {
    const userId = `user-${randomUUID()}`;
    const token = await signAccessToken(config.jwt, userId);
    await call(token, 'PUT', { url: 'https://hooks.example.com/attempts' });
    const { version } = await waitFor(() => sent.find((s) => s.userId === userId), 'SetResearchWebhook');
    const publisher = new JetStreamPublisher(jetstream(nc));
    const jsm = await jetstreamManager(nc);
    const eventId = randomUUID();
    const report = (attempt: number, attemptedAt: string, outcome: 'delivered' | 'retrying' | 'failed', reason: string | null, webhookVersion = version) =>
      publisher.publish(
        ResearchWebhookAttempted,
        { userId, webhookVersion, eventId, eventType: ResearchCompleted.subject, attempt, attemptedAt, outcome, reason },
        { source: '/openpaw/test-research', correlationId: randomUUID(), userId },
      );
    /** Every report published so far has been handled by the gateway. */
    const settled = () =>
      waitFor(async () => {
        const info = await jsm.consumers.info(STREAMS.events.name, WEBHOOK_ATTEMPTS_DURABLE);
        return info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined;
      }, 'the attempt reports handled');
    const lastDelivery = async () => (await call(token, 'GET')).body['lastDelivery'];

    await report(1, '2026-11-24T10:00:00.000Z', 'retrying', 'answered 503');
    await settled();
    expect(await lastDelivery()).toEqual({ eventId, eventType: ResearchCompleted.subject, attempt: 1, attemptedAt: '2026-11-24T10:00:00.000Z', outcome: 'retrying', reason: 'answered 503' });

    await report(2, '2026-11-24T10:00:05.000Z', 'delivered', null);
    // Reported late: older than the one shown, and one for the registration before this one.
    await report(1, '2026-11-24T09:59:00.000Z', 'failed', 'answered 410');
    await report(3, '2026-11-24T10:01:00.000Z', 'failed', 'answered 410', version - 1);
    await settled();
    expect(await lastDelivery()).toMatchObject({ attempt: 2, attemptedAt: '2026-11-24T10:00:05.000Z', outcome: 'delivered', reason: null });

    // A new registration starts afresh.
    await call(token, 'PUT', { url: 'https://hooks.example.com/attempts-again' });
    expect(await lastDelivery()).toBeNull();
  });
});
