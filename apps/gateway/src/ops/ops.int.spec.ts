import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { STREAMS } from '@openpaw/contracts';
import { DLQ_HEADERS, ensureConsumer } from '@openpaw/messaging';
import { startService } from '@openpaw/platform';
import { freshDatabase, privateNatsServer, type NatsServerHandle } from '@openpaw/testing';
import { DEFAULT_ADMISSION_LIMITS } from '../admission/admission-limits.js';
import { GatewayModule } from '../app.module.js';
import { signAccessToken } from '../auth/tokens.js';
import type { GatewayConfig } from '../config.js';
import { configureGateway } from '../configure.js';

process.env['LOG_LEVEL'] ??= 'warn';

const LANE = 'ops-spec-lane';
const LANE_SUBJECT = 'openpaw.cmd.opsspec.>';
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

  const get = (path: string, token?: string): Promise<Response> => fetch(`${url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    nats = await privateNatsServer();
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-ops-blobs-'));
    const config: GatewayConfig = {
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('gateway_ops'),
      jwt: { secret: 'integration-test-secret-of-at-least-32-chars', issuer: 'openpaw', audience: 'openpaw-api' },
      admission: DEFAULT_ADMISSION_LIMITS,
      cancelWaitMs: 3000,
      sseHeartbeatMs: 250,
      startWaitMs: 2000,
      uploadMaxBytes: 1024 * 1024,
      blobEnv: { OPENPAW_BLOB_DIR: blobDir },
    };
    ({ app, url } = await startService({ name: 'gateway', module: GatewayModule.forRoot(config), defaultPort: 0, port: 0, configure: configureGateway }));
    nc = await connect({ servers: nats.url, name: 'ops-int-spec' });
    adminToken = await signAccessToken(config.jwt, 'operator-olga', { roles: ['admin'] });
    userToken = await signAccessToken(config.jwt, 'student-sam');
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.dispose();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  it('refuses a caller without the admin role (403 naming the role) and one without a token (401)', async () => {
    for (const path of ['/ops/lanes', '/ops/dead-letters']) {
      const forbidden = await get(path, userToken);
      expect(forbidden.status).toBe(403);
      expect(await forbidden.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('admin') });
      expect((await get(path)).status).toBe(401);
    }
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
});
