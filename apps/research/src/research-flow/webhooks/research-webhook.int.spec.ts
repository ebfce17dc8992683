import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  deadLetterSubjectOf,
  type MessageData,
  parseEnvelope,
  RESEARCH_WEBHOOK_SECRET_PURPOSE,
  ResearchCompleted,
  ResearchFailed,
  ResearchWebhookAttempted,
  SetResearchWebhook,
} from '@openpaw/contracts';
import { DLQ_HEADERS } from '@openpaw/messaging';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { createLlmFromEnv } from '@openpaw/providers';
import { SecretSealer } from '@openpaw/providers/keys';
import { freshDatabase, privateNatsServer, type NatsServerHandle, waitFor } from '@openpaw/testing';
import { ResearchModule, SERVICE_NAME } from '../../app.module.js';
import { researchSettingsFromEnv } from '../../config.js';
import { verifyWebhookSignature, WEBHOOK_HEADERS } from './webhook-signature.js';

process.env['LOG_LEVEL'] ??= 'warn';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly answered: number;
}

/** A user's endpoint on 127.0.0.1: answers `failWith` (503) to the first `failFirst` deliveries, then 204. */
async function startEndpoint(failFirst: number, failWith = 503): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answered = received.length < failFirst ? failWith : 204;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      res.writeHead(answered);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/research`, received };
}

describe('research webhooks (real NATS + PostgreSQL, a scripted endpoint on 127.0.0.1)', () => {
  const encryptionKey = randomBytes(32);
  const sealer = new SecretSealer(encryptionKey);
  let nats: NatsServerHandle;
  let service: RunningService;
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;
  let db: pg.Client;
  const servers: Server[] = [];
  /** Every `ResearchWebhookAttempted` the service reported. */
  const reports: MessageData<typeof ResearchWebhookAttempted>[] = [];
  const reportsOf = (userId: string) => reports.filter((r) => r.userId === userId).sort((a, b) => a.attempt - b.attempt);

  beforeAll(async () => {
    nats = await privateNatsServer();
    const databaseUrl = await freshDatabase('research_webhooks');
    const fromEnv = researchSettingsFromEnv({
      OPENPAW_NATS_URL: nats.url,
      OPENPAW_KEY_ENCRYPTION_KEY: encryptionKey.toString('base64'),
      // Short waits between attempts.
      OPENPAW_RESEARCH_WEBHOOK_BACKOFF_MS: '200,400',
    });
    const settings = {
      ...fromEnv,
      // The endpoints of this test are on loopback, which no variable can allow.
      flow: { ...fromEnv.flow, webhook: { ...fromEnv.flow.webhook, allowPrivateAddresses: true } },
      databaseUrl,
      poolSize: 4,
      perSourceLimit: 10,
      sourceDeadlineMs: 5_000,
      maxTokens: 1_000,
      scoreBatchSize: 20,
      stepDeadlineMs: 10_000,
      paperSearchConcurrency: 2,
    };
    service = await startService({ name: SERVICE_NAME, module: ResearchModule.forRoot(settings, { llm: createLlmFromEnv({}), sources: [] }), defaultPort: 0, port: 0 });
    nc = await connectNats({ servers: nats.url, name: 'research-webhook-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
    publisher = new JetStreamPublisher(jetstream(nc));
    nc.subscribe(ResearchWebhookAttempted.subject, {
      callback: (_error, message) => {
        const parsed = parseEnvelope(ResearchWebhookAttempted, message.data);
        if (parsed.ok) reports.push(parsed.envelope.data);
      },
    });
    await nc.flush();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await service?.app.close();
    await nc?.close();
    await nats?.dispose();
    for (const server of servers) server.close();
  });

  const register = async (userId: string, url: string | null, secret: string | null, version: number): Promise<void> => {
    await publisher.publish(
      SetResearchWebhook,
      { userId, url, sealedSecret: secret === null ? null : sealer.seal(RESEARCH_WEBHOOK_SECRET_PURPOSE, userId, secret), version },
      { source: '/openpaw/test-gateway', correlationId: randomUUID(), userId },
    );
  };

  /** The service has applied the setting of `version` (the registration is a command, the delivery an event: they race otherwise). */
  const applied = (userId: string, version: number): Promise<true> =>
    waitFor(
      async () => {
        const rows = await db.query<{ version: string }>(`select version from research.research_webhooks where user_id = $1`, [userId]);
        return Number(rows.rows[0]?.version) >= version ? true : undefined;
      },
      `webhook setting ${version} of ${userId}`,
      20_000,
    );

  const completed = async (userId: string): Promise<string> => {
    const id = randomUUID();
    const researchId = randomUUID();
    await publisher.publish(
      ResearchCompleted,
      {
        researchId,
        userId,
        title: 'Heat pumps',
        prompt: 'How efficient are heat pumps?',
        providers: ['local'],
        failedProviders: [],
        synthesized: false,
        shareUrl: null,
        shareExpiresAt: null,
        costUsd: 0,
        completedAt: new Date().toISOString(),
      },
      { id, source: '/openpaw/test-coordinator', correlationId: researchId, userId },
    );
    return id;
  };

  it('delivers ResearchCompleted signed, retrying after 5xx answers until the endpoint accepts; every attempt verifies', async () => {
    const endpoint = await startEndpoint(2);
    servers.push(endpoint.server);
    const userId = `user-${randomUUID()}`;
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    const version = Date.now();
    await register(userId, endpoint.url, secret, version);
    await applied(userId, version);
    const eventId = await completed(userId);

    await waitFor(() => (endpoint.received.some((r) => r.answered === 204) ? true : undefined), 'the accepted delivery', 20_000);
    expect(endpoint.received.map((r) => r.answered)).toEqual([503, 503, 204]);
    const now = Math.floor(Date.now() / 1000);
    for (const attempt of endpoint.received) {
      const timestamp = Number(attempt.headers[WEBHOOK_HEADERS.timestamp]);
      expect(verifyWebhookSignature(secret, String(attempt.headers[WEBHOOK_HEADERS.signature]), timestamp, attempt.body, now)).toBe(true);
      expect(verifyWebhookSignature('whsec_not-the-secret-of-this-user', String(attempt.headers[WEBHOOK_HEADERS.signature]), timestamp, attempt.body, now)).toBe(false);
      expect(attempt.headers[WEBHOOK_HEADERS.eventId]).toBe(eventId);
      expect(JSON.parse(attempt.body)).toMatchObject({ id: eventId, type: ResearchCompleted.subject, data: { userId, title: 'Heat pumps' } });
    }
    // Accepted once: no further attempt.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(endpoint.received).toHaveLength(3);
    // Each attempt reported, for the user to see their webhook's last delivery.
    const attempts = await waitFor(() => (reportsOf(userId).length === 3 ? reportsOf(userId) : undefined), 'three attempt reports');
    expect(attempts.map((r) => [r.attempt, r.outcome, r.reason])).toEqual([
      [1, 'retrying', expect.stringContaining('answered 503')],
      [2, 'retrying', expect.stringContaining('answered 503')],
      [3, 'delivered', null],
    ]);
    for (const report of attempts) expect(report).toMatchObject({ webhookVersion: version, eventId, eventType: ResearchCompleted.subject });
  });

  it('sends nothing for a user without a webhook, or after its removal, and an older registration arriving late does not bring it back', async () => {
    const endpoint = await startEndpoint(0);
    servers.push(endpoint.server);
    const userId = `user-${randomUUID()}`;
    const other = `user-${randomUUID()}`;
    const registeredAt = Date.now();
    await register(userId, endpoint.url, 'whsec_0123456789abcdefghijklmnop', registeredAt);
    await applied(userId, registeredAt);
    await completed(other);
    await completed(userId);
    await waitFor(() => (endpoint.received.length === 1 ? true : undefined), 'the delivery', 20_000);

    await register(userId, null, null, registeredAt + 2);
    // A re-sent registration older than the removal.
    await register(userId, endpoint.url, 'whsec_0123456789abcdefghijklmnop', registeredAt + 1);
    await applied(userId, registeredAt + 2);
    // The late one has been handled too once a later command is (one critical-lane consumer, in order of handling at most its concurrency apart): give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await publisher.publish(
      ResearchFailed,
      {
        researchId: randomUUID(),
        userId,
        title: 'Heat pumps',
        errorKind: 'all_failed',
        error: 'All LLM calls failed',
        failedProviders: ['local'],
        retryCount: 0,
        legRound: 1,
        synthesisRound: 0,
        failedAt: new Date().toISOString(),
      },
      { source: '/openpaw/test-coordinator', correlationId: randomUUID(), userId },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(endpoint.received).toHaveLength(1);
    expect(JSON.parse(endpoint.received[0]?.body ?? '{}')).toMatchObject({ type: ResearchCompleted.subject, data: { userId } });
  });

  it('dead-letters an event the endpoint refuses (4xx) with the reason, without another attempt', async () => {
    const endpoint = await startEndpoint(100, 410);
    servers.push(endpoint.server);
    const userId = `user-${randomUUID()}`;
    const version = Date.now();
    const deadLetters: string[] = [];
    const subscription = nc.subscribe(deadLetterSubjectOf(ResearchCompleted.subject), {
      callback: (_error, message) => {
        if (message.headers?.get(DLQ_HEADERS.consumer) === 'research-webhooks-completed') deadLetters.push(message.headers.get(DLQ_HEADERS.reason));
      },
    });
    await nc.flush();
    await register(userId, endpoint.url, 'whsec_0123456789abcdefghijklmnop', version);
    await applied(userId, version);
    await completed(userId);
    const reason = await waitFor(() => deadLetters[0], 'the dead letter', 20_000);
    subscription.unsubscribe();
    expect(reason).toContain('answered 410');
    expect(endpoint.received).toHaveLength(1);
    const failed = await waitFor(() => reportsOf(userId)[0], 'the attempt report');
    expect(failed).toMatchObject({ attempt: 1, outcome: 'failed', reason: expect.stringContaining('answered 410') as unknown });
  });
});
