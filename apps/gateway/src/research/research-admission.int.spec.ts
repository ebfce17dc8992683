import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { FREE_TEXT_MESSAGE, parseEnvelope, RESEARCH_WORKFLOW, RunStateChanged, StartRun } from '@openpaw/contracts';
import { JetStreamPublisher } from '@openpaw/messaging';
import { freshDatabase, privateNatsServer, type NatsServerHandle } from '@openpaw/testing';
import { DEFAULT_ADMISSION_LIMITS } from '../admission/admission-limits.js';
import { signAccessToken } from '../auth/tokens.js';
import type { GatewayConfig } from '../config.js';
import { intSpecGatewayConfig, startIntSpecGateway } from '../testing/int-spec-gateway.js';

process.env['LOG_LEVEL'] ??= 'warn';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Admission control on `POST /research` (flow control at the edge), real NATS + PostgreSQL, no coordinator. */
describe('POST /research admission control', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let app: INestApplication;
  let url: string;
  let config: GatewayConfig;

  beforeAll(async () => {
    nats = await privateNatsServer();
    config = intSpecGatewayConfig(
      { natsUrl: nats.url, databaseUrl: await freshDatabase('gateway_research_admission') },
      {
        // The enterprise tier is squeezed on rate, the pro tier on runs in flight (one).
        admission: {
          ...DEFAULT_ADMISSION_LIMITS,
          tiers: { ...DEFAULT_ADMISSION_LIMITS.tiers, enterprise: { ratePerSecond: 0.2, burst: 1, maxInFlight: 1_000 }, pro: { ratePerSecond: 1_000, burst: 1_000, maxInFlight: 1 } },
        },
        cancelWaitMs: 1000,
        // No coordinator answers here: a start is accepted (StartRun sent) and answered 503 `pending` after this.
        startWaitMs: 300,
        uploadMaxBytes: 64 * 1024,
      },
    );
    ({ app, url } = await startIntSpecGateway(config));
    nc = await connect({ servers: nats.url, name: 'research-admission-int-spec' });
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.dispose();
  });

  it('answers a start over the tier rate 429 with Retry-After and starts nothing', async () => {
    const userId = `user-${randomUUID()}`;
    const token = await signAccessToken(config.jwt, userId, { tier: 'enterprise' });
    const starts: string[] = [];
    const subscription = nc.subscribe(StartRun.subject, {
      callback: (_error, message: Msg) => {
        const parsed = parseEnvelope(StartRun, message.data);
        if (parsed.ok && parsed.envelope.data.userId === userId && parsed.envelope.data.workflowType === RESEARCH_WORKFLOW) starts.push(parsed.envelope.data.runId);
      },
    });
    await nc.flush();
    const start = (idempotencyKey: string): Promise<Response> =>
      fetch(`${url}/research`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify({ prompt: 'How efficient are heat pumps?', selectedLlms: ['local'], synthesisLlm: 'local' }),
      });

    const first = await start('first');
    expect(first.status).not.toBe(429);
    const second = await start('second');
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await second.json()).toMatchObject({ error: 'too_many_requests', reason: 'rate_limited' });

    await delay(300);
    subscription.unsubscribe();
    expect(starts).toHaveLength(1);
  });

  it('refuses NUL or a lone surrogate in a free-text field with 400 naming the field, and starts nothing', async () => {
    const userId = `user-${randomUUID()}`;
    const token = await signAccessToken(config.jwt, userId);
    const starts: string[] = [];
    const subscription = nc.subscribe(StartRun.subject, {
      callback: (_error, message: Msg) => {
        const parsed = parseEnvelope(StartRun, message.data);
        if (parsed.ok && parsed.envelope.data.userId === userId) starts.push(parsed.envelope.data.runId);
      },
    });
    await nc.flush();
    const cases: [string, Record<string, unknown>, string][] = [
      ['/research', { prompt: 'heat pumps\u0000', selectedLlms: ['local'], synthesisLlm: 'local' }, 'prompt'],
      ['/research', { prompt: 'How efficient are heat pumps?', title: 'Heat \u0000pumps', selectedLlms: ['local'], synthesisLlm: 'local' }, 'title'],
      ['/research', { prompt: 'half an emoji \uD83D', selectedLlms: ['local'], synthesisLlm: 'local' }, 'prompt'],
      ['/research', { prompt: 'ok', externalReports: [{ content: 'report \uDC3E' }], selectedLlms: ['local'], synthesisLlm: 'local' }, 'externalReports.0.content'],
      ['/research/draft', { prompt: 'draft\u0000' }, 'prompt'],
    ];
    for (const [path, json, field] of cases) {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
      expect([field, response.status]).toEqual([field, 400]);
      expect(await response.json()).toMatchObject({ error: 'validation_failed', location: 'body', issues: [{ path: field, message: FREE_TEXT_MESSAGE }] });
    }
    await delay(300);
    subscription.unsubscribe();
    expect(starts).toEqual([]);
  });

  /** Projects a research run of `userId` in `state`, as the coordinator's run event would, and waits until the gateway shows it. */
  async function projectRun(userId: string, state: string, token: string): Promise<void> {
    const runId = randomUUID();
    await new JetStreamPublisher(jetstream(nc)).publish(
      RunStateChanged,
      {
        runId,
        workflowType: RESEARCH_WORKFLOW,
        userId,
        attemptNo: 1,
        version: 1,
        stateBefore: null,
        stateAfter: state,
        terminal: false,
        stepName: state,
        parentRunId: null,
        view: { status: state },
        occurredAt: new Date().toISOString(),
      },
      { source: '/openpaw/test-coordinator', correlationId: runId },
    );
    const deadline = Date.now() + 10_000;
    while ((await fetch(`${url}/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } })).status !== 200) {
      if (Date.now() > deadline) throw new Error('the run was not projected in time');
      await delay(50);
    }
  }

  it('counts a running research against the in-flight limit, but not a draft waiting for its user', async () => {
    const userId = `user-${randomUUID()}`;
    const token = await signAccessToken(config.jwt, userId, { tier: 'pro' });
    const start = (): Promise<Response> =>
      fetch(`${url}/research`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ prompt: 'How efficient are heat pumps?', selectedLlms: ['local'], synthesisLlm: 'local' }),
      });

    await projectRun(userId, 'draft', token);
    // One draft in flight would already be the pro tier's limit here: it is not counted.
    const besideDraft = await start();
    expect(besideDraft.status).not.toBe(429);

    const other = `user-${randomUUID()}`;
    const otherToken = await signAccessToken(config.jwt, other, { tier: 'pro' });
    await projectRun(other, 'processing', otherToken);
    const overLimit = await fetch(`${url}/research`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'How efficient are heat pumps?', selectedLlms: ['local'], synthesisLlm: 'local' }),
    });
    expect(overLimit.status).toBe(429);
    expect(await overLimit.json()).toMatchObject({ reason: 'too_many_in_flight' });
  });
});
