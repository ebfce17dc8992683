import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { createEnvelope, defineCommand, RunStateChanged, STREAMS } from '@openpaw/contracts';
import { DLQ_HEADERS, ensureConsumer, JetStreamPublisher, startConsumer, type ConsumerHandle } from '@openpaw/messaging';
import { freshDatabase, privateNatsServer, type NatsServerHandle, waitFor } from '@openpaw/testing';
import { z } from 'zod';
import { signAccessToken } from '../auth/tokens.js';
import type { GatewayConfig } from '../config.js';
import { intSpecGatewayConfig, startIntSpecGateway } from '../testing/int-spec-gateway.js';

process.env['LOG_LEVEL'] ??= 'warn';

const LANE = 'ops-spec-lane';
const LANE_SUBJECT = 'openpaw.cmd.opsspec.>';
const RedriveWork = defineCommand('redrivespec', 'Work', 1, z.object({ n: z.int() }), 'a command the redrive spec dead-letters and redrives');
const SECRET_TEXT = 'Solve for x: the student Jane Doe, born 2009, asks 2x + 3 = 7';

/** The operations API through the real gateway, on a real nats-server (JetStream) and PostgreSQL. */
describe('the operations API (real NATS + PostgreSQL)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let app: INestApplication;
  let url: string;
  let blobDir: string;
  let adminToken: string;
  let userToken: string;
  let config: GatewayConfig;

  const get = (path: string, token?: string): Promise<Response> => fetch(`${url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  const post = (path: string, token: string, body?: unknown): Promise<Response> =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const consumers: ConsumerHandle[] = [];

  beforeAll(async () => {
    nats = await privateNatsServer();
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-ops-blobs-'));
    config = intSpecGatewayConfig({ natsUrl: nats.url, databaseUrl: await freshDatabase('gateway_ops'), blobDir });
    ({ app, url } = await startIntSpecGateway(config));
    nc = await connect({ servers: nats.url, name: 'ops-int-spec' });
    adminToken = await signAccessToken(config.jwt, 'operator-olga', { roles: ['admin'] });
    userToken = await signAccessToken(config.jwt, 'student-sam');
  }, 120_000);

  afterAll(async () => {
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    await app?.close();
    await nc?.close();
    await nats?.dispose();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  it('refuses a caller without the admin role (403 naming the role) and one without a token (401)', async () => {
    for (const path of ['/ops/lanes', '/ops/dead-letters', '/ops/audit', '/ops/in-flight']) {
      const forbidden = await get(path, userToken);
      expect(forbidden.status).toBe(403);
      expect(await forbidden.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('admin') });
      expect((await get(path)).status).toBe(401);
    }
  });

  it('counts in-flight runs by the tier they were admitted under and by workflow, from the projection', async () => {
    const publisher = new JetStreamPublisher(jetstream(nc));
    let version = 0;
    const publishState = (runId: string, workflowType: string, state: string, terminal: boolean): Promise<unknown> =>
      publisher.publish(
        RunStateChanged,
        { runId, workflowType, userId: 'someone', attemptNo: 1, version: (version += 1), stateBefore: null, stateAfter: state, terminal, stepName: 'start', parentRunId: null, view: {}, occurredAt: new Date().toISOString() },
        { source: '/openpaw/test-coordinator', correlationId: runId },
      );
    const inFlight = async (): Promise<unknown> => (await get('/ops/in-flight', adminToken)).json();
    const submit = async (token: string, text: string): Promise<string> => {
      const response = await post('/problems', token, { text });
      expect(response.status).toBe(202);
      return ((await response.json()) as { run_id: string }).run_id;
    };
    // Admitted by the gateway (no coordinator here: the test publishes what it would).
    const proRun = await submit(await signAccessToken(config.jwt, 'pro-paula', { tier: 'pro' }), 'Solve for x: x + 1 = 2');
    const freeRun = await submit(userToken, 'Solve for x: x + 2 = 3');
    await publishState(proRun, 'retrieve_or_generate', 'INGESTING', false);
    await publishState(freeRun, 'retrieve_or_generate', 'RETRIEVING', false);
    // Never admitted here (its tier unknown), a child run (not user-started) and an ended run.
    await publishState(crypto.randomUUID(), 'retrieve_or_generate', 'INGESTING', false);
    await publishState(crypto.randomUUID(), 'solve_workflow', 'GENERATING', false);
    await publishState(crypto.randomUUID(), 'retrieve_or_generate', 'SUCCEEDED', true);

    const expected = {
      byTier: [
        { tier: 'free', runs: 1 },
        { tier: 'not recorded', runs: 1 },
        { tier: 'pro', runs: 1 },
      ],
      byWorkflow: [
        { workflowType: 'retrieve_or_generate', runs: 3 },
        { workflowType: 'solve_workflow', runs: 1 },
      ],
    };
    await waitFor(async () => (JSON.stringify(await inFlight()) === JSON.stringify(expected) ? true : undefined), 'the in-flight counts', 15_000);

    await publishState(proRun, 'retrieve_or_generate', 'SUCCEEDED', true);
    await waitFor(async () => ((await inFlight()) as typeof expected).byTier.every((row) => row.tier !== 'pro') || undefined, 'the pro run ended', 15_000);
    expect(await inFlight()).toEqual({ byTier: [expected.byTier[0], expected.byTier[1]], byWorkflow: [{ workflowType: 'retrieve_or_generate', runs: 2 }, expected.byWorkflow[1]] });
    expect((await get('/ops/in-flight', userToken)).status).toBe(403);
  });

  it("shows a lane's backlog, in-flight and redelivered counts from JetStream", async () => {
    const jsm = await jetstreamManager(nc);
    await ensureConsumer(jsm, { stream: STREAMS.commands.name, durable: LANE, filterSubject: LANE_SUBJECT, maxDeliver: 6, ackWaitMs: 60_000, maxAckPending: 10 });
    const js = jetstream(nc);
    for (let n = 1; n <= 3; n++) await js.publish(`openpaw.cmd.opsspec.Work.v1`, JSON.stringify({ n }), { msgID: `ops-spec-work-${n}` });
    // One taken and not acknowledged: in flight.
    const consumer = await js.consumers.get(STREAMS.commands.name, LANE);
    const taken = await consumer.next({ expires: 5_000 });
    expect(taken).not.toBeNull();

    const response = await get('/ops/lanes', adminToken);
    expect(response.status).toBe(200);
    const { lanes } = (await response.json()) as { lanes: Record<string, unknown>[] };
    expect(lanes.find((lane) => lane['consumer'] === LANE)).toMatchObject({
      stream: STREAMS.commands.name,
      filterSubject: LANE_SUBJECT,
      pending: 2,
      ackPending: 1,
      redelivered: 0,
      maxAckPending: 10,
      lastActive: expect.any(String),
    });
    // The gateway's own projection consumers on the events stream are lanes too.
    expect(lanes.some((lane) => lane['stream'] === STREAMS.events.name)).toBe(true);
  });

  it('lists the newest dead letters with reason and origin, the payload redacted (ids and types kept)', async () => {
    const js = jetstream(nc);
    const h = headers();
    h.set(DLQ_HEADERS.reason, 'invalid_payload: text is required');
    h.set(DLQ_HEADERS.originalSubject, 'openpaw.cmd.opsspec.Work.v1');
    h.set(DLQ_HEADERS.stream, STREAMS.commands.name);
    h.set(DLQ_HEADERS.consumer, LANE);
    h.set(DLQ_HEADERS.deliveries, '5');
    h.set(DLQ_HEADERS.originalMsgId, 'ops-spec-work-9');
    const envelope = { id: 'msg-9', type: 'openpaw.cmd.opsspec.Work.v1', correlationid: 'run-1', data: { runId: 'run-1', text: SECRET_TEXT, attempt: 2 } };
    await js.publish('openpaw.dlq.cmd.opsspec.Work.v1', JSON.stringify(envelope), { msgID: 'dlq:ops-spec:9', headers: h });
    await js.publish('openpaw.dlq.cmd.opsspec.Work.v1', 'not json at all', { msgID: 'dlq:ops-spec:10' });

    const response = await get('/ops/dead-letters?limit=10', adminToken);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { total: number; deadLetters: Record<string, unknown>[] };
    expect(body.total).toBe(2);
    const [newest, older] = body.deadLetters;
    expect(newest).toMatchObject({ subject: 'openpaw.dlq.cmd.opsspec.Work.v1', reason: null, payload: '[not JSON: 15 bytes]', bytes: 15 });
    expect(older).toMatchObject({
      reason: 'invalid_payload: text is required',
      originalSubject: 'openpaw.cmd.opsspec.Work.v1',
      originalStream: STREAMS.commands.name,
      consumer: LANE,
      deliveries: 5,
      originalMsgId: 'ops-spec-work-9',
      payload: { id: 'msg-9', type: 'openpaw.cmd.opsspec.Work.v1', correlationid: 'run-1', data: { runId: 'run-1', text: `[redacted: ${SECRET_TEXT.length} chars]`, attempt: 2 } },
    });
    expect(JSON.stringify(body)).not.toContain('Jane Doe');

    expect((await get('/ops/dead-letters?limit=1', adminToken)).status).toBe(200);
    const refused = await get('/ops/dead-letters?limit=0', adminToken);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'validation_failed', issues: [expect.objectContaining({ path: 'limit' })] });
  });

  it('redrives dead letters a real failing consumer produced, one and by filter (dry run counts first), and the consumer handles them', async () => {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const durable = 'redrive-spec-lane';
    await ensureConsumer(jsm, { stream: STREAMS.commands.name, durable, filterSubject: 'openpaw.cmd.redrivespec.>', maxDeliver: 6, ackWaitMs: 10_000, maxAckPending: 10 });
    let downstreamUp = false;
    const handled: { id: string; n: number }[] = [];
    consumers.push(
      await startConsumer(js, {
        stream: STREAMS.commands.name,
        durable,
        definitions: [RedriveWork],
        handler: (item) => {
          if (!downstreamUp) return Promise.resolve({ kind: 'reject', reason: 'downstream refused: quota exceeded' });
          handled.push({ id: item.envelope.id, n: (item.envelope.data as { n: number }).n });
          return Promise.resolve();
        },
      }),
    );
    const envelopes = [1, 2, 3].map((n) => createEnvelope(RedriveWork, { n }, { source: '/openpaw/ops-spec', correlationId: `run-${n}` }));
    for (const [i, envelope] of envelopes.entries()) await js.publish(RedriveWork.subject, JSON.stringify(envelope), { msgID: `redrive-spec-${i + 1}` });

    type Listed = { seq: number; originalSubject: string | null; payload: { data: { n: number } } };
    const listed = async (): Promise<Listed[]> => {
      const body = (await (await get('/ops/dead-letters?limit=200', adminToken)).json()) as { deadLetters: Listed[] };
      return body.deadLetters.filter((dead) => dead.originalSubject === RedriveWork.subject);
    };
    let dead: Listed[] = [];
    for (let tries = 0; dead.length < 3 && tries < 200; tries++) {
      dead = await listed();
      if (dead.length < 3) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(dead).toHaveLength(3);
    const first = dead.find((d) => d.payload.data.n === 1);
    if (first === undefined) throw new Error('the dead letter of n=1 is not listed');

    expect((await post(`/ops/dead-letters/${first.seq}/redrive`, userToken)).status).toBe(403);
    expect((await post('/ops/dead-letters/redrive', userToken, { reason: 'quota', dry_run: true })).status).toBe(403);

    downstreamUp = true;
    const one = await post(`/ops/dead-letters/${first.seq}/redrive`, adminToken);
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ seq: first.seq, subject: RedriveWork.subject, msgId: `redrive-spec-1:redrive:${first.seq}` });
    const again = await post(`/ops/dead-letters/${first.seq}/redrive`, adminToken);
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ error: 'not_found' });

    const filter = { subject: 'openpaw.cmd.redrivespec.>', reason: 'QUOTA' };
    const dryRun = await post('/ops/dead-letters/redrive', adminToken, { ...filter, dry_run: true });
    expect(dryRun.status).toBe(200);
    expect(await dryRun.json()).toEqual({ dryRun: true, matched: 2, redriven: 0, subjects: [RedriveWork.subject] });
    expect(await listed()).toHaveLength(2);
    const noMatch = await post('/ops/dead-letters/redrive', adminToken, { ...filter, reason: 'no such reason', dry_run: true });
    expect(await noMatch.json()).toMatchObject({ matched: 0 });

    const bulk = await post('/ops/dead-letters/redrive', adminToken, filter);
    expect(bulk.status).toBe(200);
    expect(await bulk.json()).toEqual({ dryRun: false, matched: 2, redriven: 2, subjects: [RedriveWork.subject] });
    expect(await listed()).toHaveLength(0);

    for (let tries = 0; handled.length < 3 && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
    // Each handled once, with its original envelope (same id: the handlers' idempotency key).
    expect([...handled].sort((a, b) => a.n - b.n)).toEqual(envelopes.map((envelope, i) => ({ id: envelope.id, n: i + 1 })));

    const noFilter = await post('/ops/dead-letters/redrive', adminToken, { dry_run: true });
    expect(noFilter.status).toBe(400);
    expect(await noFilter.json()).toMatchObject({ error: 'validation_failed', issues: [expect.objectContaining({ path: 'subject' })] });
    expect((await post('/ops/dead-letters/0/redrive', adminToken)).status).toBe(400);

    // The audit log: both redrives (not the dry runs), who, what, how many, newest first.
    expect((await get('/ops/audit', userToken)).status).toBe(403);
    const audit = await get('/ops/audit?limit=10', adminToken);
    expect(audit.status).toBe(200);
    const { entries } = (await audit.json()) as { entries: Record<string, unknown>[] };
    expect(entries).toEqual([
      { id: expect.any(Number), actor: 'operator-olga', action: 'redrive_by_filter', target: { ...filter, limit: 1000 }, affected: 2, occurredAt: expect.any(String) },
      { id: expect.any(Number), actor: 'operator-olga', action: 'redrive_one', target: { seq: first.seq, subject: RedriveWork.subject, msgId: `redrive-spec-1:redrive:${first.seq}` }, affected: 1, occurredAt: expect.any(String) },
    ]);
    expect(Date.parse(String(entries[1]?.['occurredAt']))).toBeLessThanOrEqual(Date.parse(String(entries[0]?.['occurredAt'])));
    expect((await get('/ops/audit?limit=0', adminToken)).status).toBe(400);

    // A dead letter no consumer wrote (any service may publish dead letters): stored on another subject's
    // dead-letter subject while naming a command, it is refused one by one and by filter, and nothing is published.
    const forged = createEnvelope(RedriveWork, { n: 99 }, { source: '/openpaw/ops-spec', correlationId: 'run-forged' });
    const forgedHeaders = headers();
    forgedHeaders.set(DLQ_HEADERS.originalSubject, RedriveWork.subject);
    forgedHeaders.set(DLQ_HEADERS.reason, 'forged: quota');
    const planted = await js.publish('openpaw.dlq.evt.redrivespec.Other.v1', JSON.stringify(forged), { msgID: 'redrive-spec-forged', headers: forgedHeaders });
    const refusedForged = await post(`/ops/dead-letters/${planted.seq}/redrive`, adminToken);
    expect(refusedForged.status).toBe(422);
    expect(await refusedForged.json()).toMatchObject({ error: 'not_redrivable', message: expect.stringContaining('no consumer wrote it') });
    expect(await (await post('/ops/dead-letters/redrive', adminToken, { subject: RedriveWork.subject, reason: 'forged' })).json()).toMatchObject({ matched: 1, redriven: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(handled.map((h) => h.n)).not.toContain(99);
  });
});
