import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { jetstream } from '@nats-io/jetstream';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import {
  CancelRun,
  InputRefused,
  type MessageData,
  parseEnvelope,
  RunStateChanged,
  RunStateChangedV2,
  StartRun,
  type Envelope,
} from '@openpaw/contracts';
import { JetStreamPublisher } from '@openpaw/messaging';
import { startService } from '@openpaw/platform';
import { freshDatabase, privateNatsServer, type NatsServerHandle } from '@openpaw/testing';
import { GatewayModule } from './app.module.js';
import { signAccessToken } from './auth/tokens.js';
import type { GatewayConfig } from './config.js';
import { configureGateway } from './configure.js';
import { RunProjectionStore } from './projection/run-projection.store.js';
import { RunSubmitter, type SubmissionRun } from './runs/submit/run-submitter.js';
import { intSpecGatewayConfig } from './testing/int-spec-gateway.js';
import { EventSourceParserStream } from 'eventsource-parser/stream';

process.env['LOG_LEVEL'] ??= 'warn';

type RunEventData = MessageData<typeof RunStateChanged>;

const ALICE = 'user-alice';
const BOB = 'user-bob';
const WORKFLOW = 'TestWorkflow';

describe('gateway (real NATS + PostgreSQL)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;
  let app: INestApplication;
  let url: string;
  let config: GatewayConfig;
  let aliceToken: string;
  let bobToken: string;
  let blobDir: string;
  const clock = { ms: Date.parse('2030-01-01T00:00:00.000Z') };

  /** A coordinator stand-in publishing run events (each later than the last, unless told). */
  async function publishState(
    runId: string,
    userId: string,
    version: number,
    stateAfter: string,
    options: { terminal?: boolean; occurredAt?: string; workflowType?: string; view?: Record<string, unknown>; retryScheduled?: RunEventData['retryScheduled'] } = {},
  ): Promise<void> {
    clock.ms += 1000;
    const data: RunEventData = {
      runId,
      workflowType: options.workflowType ?? WORKFLOW,
      userId,
      attemptNo: 1,
      version,
      stateBefore: version === 0 ? null : 'PREVIOUS',
      stateAfter,
      terminal: options.terminal ?? false,
      stepName: `step-${version}`,
      parentRunId: null,
      view: options.view ?? { progress: version },
      occurredAt: options.occurredAt ?? new Date(clock.ms).toISOString(),
      ...(options.retryScheduled === undefined ? {} : { retryScheduled: options.retryScheduled }),
    };
    await publisher.publish(RunStateChanged, data, { source: '/openpaw/test-coordinator', correlationId: runId });
  }

  function api(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${url}${path}`, { ...init, headers });
  }

  async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits until the projection shows `runId` at `version` (as its owner sees it). */
  async function projected(runId: string, token: string, version: number): Promise<Record<string, unknown>> {
    return eventually(async () => {
      const response = await api(`/runs/${runId}`, { token });
      if (response.status !== 200) return undefined;
      const body = (await response.json()) as Record<string, unknown>;
      return body['version'] === version ? body : undefined;
    });
  }

  /**
   * Waits until the run's timeline holds `length` transitions. A poll the gateway answers otherwise
   * (404 until the run's row is projected, its events being applied in any order; 429 once the polls
   * outrun the rate limit on a slow machine) is only a poll that saw nothing yet.
   */
  async function timelineOf<Item>(runId: string, token: string, length: number): Promise<{ runId: string; items: Item[] }> {
    return eventually(async () => {
      const response = await api(`/runs/${runId}/transitions`, { token });
      if (response.status !== 200) return undefined;
      const body = (await response.json()) as { runId: string; items: Item[] };
      return body.items.length === length ? body : undefined;
    });
  }

  beforeAll(async () => {
    nats = await privateNatsServer();
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-gateway-blobs-'));
    config = intSpecGatewayConfig({ natsUrl: nats.url, databaseUrl: await freshDatabase('gateway'), blobDir });
    // The gateway provisions the streams as it connects.
    ({ app, url } = await startService({
      name: 'gateway',
      module: GatewayModule.forRoot(config),
      defaultPort: 0,
      port: 0,
      configure: configureGateway,
    }));
    nc = await connect({ servers: nats.url, name: 'gateway-int-spec' });
    publisher = new JetStreamPublisher(jetstream(nc));
    aliceToken = await signAccessToken(config.jwt, ALICE);
    bobToken = await signAccessToken(config.jwt, BOB);
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.dispose();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  describe('authentication', () => {
    it('answers 401 with a JSON body without a token, or with a bad one', async () => {
      const missing = await api('/runs');
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toContain('Bearer');
      expect(await missing.json()).toEqual({ error: 'unauthorized', message: 'a bearer token is required' });

      const forged = await signAccessToken({ ...config.jwt, secret: 'another-secret-another-secret-another' }, ALICE);
      const wrongAudience = await signAccessToken({ ...config.jwt, audience: 'someone-else' }, ALICE);
      const expired = await signAccessToken(config.jwt, ALICE, { now: new Date(Date.now() - 3_600_000), expiresIn: 60 });
      for (const token of [forged, wrongAudience, expired, 'not.a.jwt']) {
        const response = await api(`/runs/${randomUUID()}`, { token });
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ error: 'unauthorized' });
      }
    });

    it('leaves the probes, metrics and docs public', async () => {
      expect((await api('/healthz')).status).toBe(200);
      const ready = await api('/readyz');
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ok', details: { database: { status: 'up' }, nats: { status: 'up' } } });
      const metrics = await (await api('/metrics')).text();
      expect(metrics).toContain('openpaw_messages_handled_total');
      const openapi = (await (await api('/docs/openapi.json')).json()) as {
        paths: Record<string, Record<string, unknown>>;
        components: { securitySchemes: Record<string, unknown> };
      };
      expect(Object.keys(openapi.paths)).toEqual(
        expect.arrayContaining(['/runs', '/runs/{id}', '/runs/{id}/events', '/runs/{id}/cancel', '/healthz', '/readyz']),
      );
      expect(openapi.components.securitySchemes).toHaveProperty('bearer');
      const list = openapi.paths['/runs']?.['get'] as { parameters: { name: string; in: string }[]; security: unknown[] };
      expect(list.parameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual(['query:cursor', 'query:from', 'query:limit', 'query:q', 'query:state', 'query:to', 'query:type', 'query:user', 'query:view']);
      expect(list.security).toEqual([{ bearer: [] }]);
      const cancel = openapi.paths['/runs/{id}/cancel']?.['post'] as {
        parameters: { name: string; in: string }[];
        requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
        responses: Record<string, unknown>;
      };
      expect(cancel.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id']);
      expect(cancel.requestBody.content['application/json']?.schema.properties).toHaveProperty('reason');
      expect(Object.keys(cancel.responses).sort()).toEqual(['202', '400', '401', '404', '409']);
      expect((await api('/docs')).status).toBe(200);
    });

    it('answers unknown routes with a JSON 404', async () => {
      const response = await api('/nowhere', { token: aliceToken });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'not_found' });
    });
  });

  describe('validation', () => {
    it('answers 400 naming the field for a bad path parameter, query value or body', async () => {
      const badId = await api('/runs/not-a-uuid', { token: aliceToken });
      expect(badId.status).toBe(400);
      expect(await badId.json()).toMatchObject({ error: 'validation_failed', location: 'params', issues: [{ path: 'id' }] });

      const badLimit = await api('/runs?limit=lots', { token: aliceToken });
      expect(badLimit.status).toBe(400);
      expect(await badLimit.json()).toMatchObject({ error: 'validation_failed', location: 'query', issues: [{ path: 'limit' }] });

      const badCursor = await api('/runs?cursor=bogus', { token: aliceToken });
      expect(await badCursor.json()).toMatchObject({ issues: [{ path: 'cursor', message: 'not a cursor returned by this API' }] });

      const badBody = await api(`/runs/${randomUUID()}/cancel`, { method: 'POST', token: aliceToken, body: JSON.stringify({ reason: 42 }) });
      expect(badBody.status).toBe(400);
      expect(await badBody.json()).toMatchObject({ error: 'validation_failed', location: 'body', issues: [{ path: 'reason' }] });

      const malformed = await api(`/runs/${randomUUID()}/cancel`, { method: 'POST', token: aliceToken, body: '{"reason":' });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({ error: 'malformed_json' });
    });
  });

  describe('malformed HTTP', () => {
    /** Writes `request` on a raw TCP connection (bytes a fetch client refuses to send) and reads the answer until the server closes. */
    async function rawHttp(request: string): Promise<{ statusLine: string; headers: Record<string, string>; body: string }> {
      const { hostname, port } = new URL(url);
      const answer = await new Promise<string>((resolve, reject) => {
        let received = '';
        const socket = createConnection({ host: hostname, port: Number(port) }, () => socket.write(request, 'latin1'));
        socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer within 10 s; so far: ${JSON.stringify(received)}`)));
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
        socket.on('error', reject);
        socket.on('close', () => resolve(received));
      });
      const [head = '', body = ''] = answer.split(/\r\n\r\n([\s\S]*)/);
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      return { statusLine, headers, body };
    }

    it('answers a NUL or another control byte in the request line, a header name or a header value with a JSON 400 naming the byte and where, before any route, and starts nothing', async () => {
      const starts: unknown[] = [];
      const subscription = nc.subscribe(StartRun.subject, {
        callback: (_error, message: Msg) => {
          starts.push(message.subject);
        },
      });
      await nc.flush();
      const body = JSON.stringify({ text: '2x + 3 = 7' });
      const submit = (extraHeader: string): string =>
        `POST /problems HTTP/1.1\r\nHost: ${new URL(url).host}\r\nAuthorization: Bearer ${aliceToken}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extraHeader === '' ? '' : `${extraHeader}\r\n`}\r\n${body}`;
      try {
        const inHeaders = ['X-Note: before\u0000after', 'X-Note: bell\u0007', `Idempotency-Key: key\u0000${randomUUID()}`, 'X-Note: \u007f', 'X-No\u0000te: v'];
        // A NUL in the request line: in the path, in the query, after the method.
        const inRequestLine = [submit('').replace('/problems', '/prob\u0000lems'), submit('').replace('/problems', '/problems?wait=1\u0000'), submit('').replace('POST ', 'POST\u0000 ')];
        for (const request of [...inHeaders.map(submit), ...inRequestLine]) {
          const refused = await rawHttp(request);
          expect({ request, statusLine: refused.statusLine, contentType: refused.headers['content-type'] }).toEqual({
            request,
            statusLine: 'HTTP/1.1 400 Bad Request',
            contentType: 'application/json; charset=utf-8',
          });
          expect({ request, body: JSON.parse(refused.body) as unknown }).toEqual({
            request,
            body: {
              error: 'bad_request',
              message: expect.stringMatching(
                /^the HTTP request could not be read: [\w ]+: byte 0x(00|07|7f) \((NUL|BEL|DEL)\) in (the request line|a header name \(after "X-No"\)|the value of the header (X-Note|Idempotency-Key))/,
              ),
            },
          });
        }
        await nc.flush();
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(starts).toEqual([]);

        // The same request without the byte is read and starts a run: the subscription sees its StartRun.
        const accepted = await rawHttp(submit('X-Note: before after'));
        expect(accepted.statusLine).toMatch(/^HTTP\/1\.1 20\d /);
        await eventually(() => Promise.resolve(starts.length === 1 ? true : undefined));
      } finally {
        subscription.unsubscribe();
      }
    });
  });

  describe('the projection', () => {
    const aliceRun = randomUUID();
    const bobRun = randomUUID();

    it('serves a run from the projection, ignoring older versions', async () => {
      await publishState(aliceRun, ALICE, 0, 'CREATED');
      await publishState(aliceRun, ALICE, 2, 'WORKING', { view: { progress: 'two' } });
      await publishState(aliceRun, ALICE, 1, 'STALE');
      await publishState(bobRun, BOB, 0, 'CREATED');
      await projected(bobRun, bobToken, 0);
      const run = await projected(aliceRun, aliceToken, 2);
      // v1 arrived after v2 and is ignored (the consumer applies in any order).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const again = (await (await api(`/runs/${aliceRun}`, { token: aliceToken })).json()) as Record<string, unknown>;
      expect(again).toEqual(run);
      expect(run).toMatchObject({
        runId: aliceRun,
        workflowType: WORKFLOW,
        state: 'WORKING',
        terminal: false,
        attemptNo: 1,
        version: 2,
        parentRunId: null,
        view: { progress: 'two' },
      });
      expect(Date.parse(run['createdAt'] as string)).toBeLessThan(Date.parse(run['updatedAt'] as string));
    });

    it("keeps every transition in the run's timeline, oldest version first, whatever order they came in", async () => {
      await projected(aliceRun, aliceToken, 2);
      // A redelivery of version 2 (a new message id, the same transition) changes nothing.
      await publishState(aliceRun, ALICE, 2, 'WORKING', { view: { progress: 'two' } });
      const timeline = await timelineOf<{ version: number; stateAfter: string; stepName: string; stateBefore: string | null; occurredAt: string }>(aliceRun, aliceToken, 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(timeline.runId).toBe(aliceRun);
      expect(timeline.items.map((t) => [t.version, t.stateBefore, t.stateAfter, t.stepName])).toEqual([
        [0, null, 'CREATED', 'step-0'],
        [1, 'PREVIOUS', 'STALE', 'step-1'],
        [2, 'PREVIOUS', 'WORKING', 'step-2'],
      ]);
      const again = (await (await api(`/runs/${aliceRun}/transitions`, { token: aliceToken })).json()) as { items: unknown[] };
      expect(again.items).toHaveLength(3);
    });

    it('keeps the retry a change scheduled (the failed try, why, the next try\'s time) in the timeline', async () => {
      const retried = randomUUID();
      const retryScheduled = { step: 'generate', failedTry: 1, nextTry: 2, nextTryAt: '2026-11-24T05:00:30.000Z', reason: 'llm_unavailable' };
      await publishState(retried, ALICE, 0, 'GENERATING');
      await publishState(retried, ALICE, 1, 'GENERATING', { retryScheduled });
      const timeline = await timelineOf<{ version: number; retryScheduled: unknown }>(retried, aliceToken, 2);
      expect(timeline.items.map((t) => [t.version, t.retryScheduled])).toEqual([
        [0, null],
        [1, retryScheduled],
      ]);
    });

    it("answers 404 for another user's run, whatever the route", async () => {
      const get = await api(`/runs/${bobRun}`, { token: aliceToken });
      expect(get.status).toBe(404);
      expect(await get.json()).toEqual({ error: 'not_found', message: 'no such run' });
      expect((await api(`/runs/${bobRun}/events`, { token: aliceToken })).status).toBe(404);
      expect((await api(`/runs/${bobRun}/transitions`, { token: aliceToken })).status).toBe(404);
      expect((await api(`/runs/${bobRun}/cancel`, { method: 'POST', token: aliceToken })).status).toBe(404);
      expect((await api(`/runs/${randomUUID()}`, { token: aliceToken })).status).toBe(404);
    });

    it("lists the caller's runs newest first, filtered, page by page", async () => {
      const carol = 'user-carol';
      const carolToken = await signAccessToken(config.jwt, carol);
      const runs = [randomUUID(), randomUUID(), randomUUID()];
      await publishState(runs[0]!, carol, 0, 'CREATED');
      await publishState(runs[1]!, carol, 0, 'CREATED', { workflowType: 'OtherWorkflow' });
      await publishState(runs[2]!, carol, 0, 'CREATED');
      await publishState(runs[2]!, carol, 1, 'DONE', { terminal: true });
      await projected(runs[2]!, carolToken, 1);
      await projected(runs[1]!, carolToken, 0);
      await projected(runs[0]!, carolToken, 0);

      const all = (await (await api('/runs', { token: carolToken })).json()) as { items: { runId: string }[]; nextCursor?: string };
      expect(all.items.map((r) => r.runId)).toEqual([runs[2], runs[1], runs[0]]);
      expect(all.nextCursor).toBeUndefined();

      const first = (await (await api('/runs?limit=2', { token: carolToken })).json()) as { items: { runId: string }[]; nextCursor: string };
      expect(first.items.map((r) => r.runId)).toEqual([runs[2], runs[1]]);
      const second = (await (await api(`/runs?limit=2&cursor=${first.nextCursor}`, { token: carolToken })).json()) as {
        items: { runId: string }[];
        nextCursor?: string;
      };
      expect(second.items.map((r) => r.runId)).toEqual([runs[0]]);
      expect(second.nextCursor).toBeUndefined();
      // Summaries by default (no view read from the projection); `view=full` pages the same runs whole, as `GET /runs/{id}` has them.
      const one = (await (await api(`/runs/${runs[2]}`, { token: carolToken })).json()) as { view: unknown };
      const { view: _view, ...summary } = one;
      expect(first.items[0]).toEqual(summary);
      const full = (await (await api('/runs?limit=2&view=full', { token: carolToken })).json()) as { items: { runId: string }[]; nextCursor: string };
      expect(full.items[0]).toEqual(one);
      expect(full.nextCursor).toBe(first.nextCursor);
      const fullSecond = (await (await api(`/runs?limit=2&view=full&cursor=${full.nextCursor}`, { token: carolToken })).json()) as { items: { runId: string }[] };
      expect(fullSecond.items.map((r) => r.runId)).toEqual([runs[0]]);

      const byType = (await (await api(`/runs?type=${WORKFLOW}`, { token: carolToken })).json()) as { items: { runId: string }[] };
      expect(byType.items.map((r) => r.runId)).toEqual([runs[2], runs[0]]);
      const byState = (await (await api('/runs?state=DONE', { token: carolToken })).json()) as { items: { runId: string }[] };
      expect(byState.items.map((r) => r.runId)).toEqual([runs[2]]);
      // Nobody else's runs show up.
      const bobs = (await (await api('/runs', { token: bobToken })).json()) as { items: { runId: string }[] };
      expect(bobs.items.map((r) => r.runId)).toEqual([bobRun]);

      // Run id search (a prefix, case-insensitive) and the creation time range.
      const byId = (await (await api(`/runs?q=${runs[1]!.slice(0, 8).toUpperCase()}`, { token: carolToken })).json()) as { items: { runId: string }[] };
      expect(byId.items.map((r) => r.runId)).toEqual([runs[1]]);
      const badQ = await api('/runs?q=not-hex!', { token: carolToken });
      expect(badQ.status).toBe(400);
      expect(await badQ.json()).toMatchObject({ issues: [expect.objectContaining({ path: 'q' })] });
      // The runs' times come from their events (the spec's clock ticks a second per event): split at the middle run.
      const middle = ((await (await api(`/runs/${runs[1]}`, { token: carolToken })).json()) as { createdAt: string }).createdAt;
      const listed = async (query: string): Promise<string[]> =>
        ((await (await api(`/runs?${query}`, { token: carolToken })).json()) as { items: { runId: string }[] }).items.map((r) => r.runId);
      expect(await listed(`from=${encodeURIComponent(middle)}`)).toEqual([runs[2], runs[1]]);
      expect(await listed(`to=${encodeURIComponent(middle)}`)).toEqual([runs[0]]);
      expect(await listed(`from=${encodeURIComponent(middle)}&to=${encodeURIComponent(middle)}`)).toEqual([]);
      expect((await api('/runs?from=yesterday', { token: carolToken })).status).toBe(400);

      // Another user's runs: admins only.
      expect((await api(`/runs?user=${carol}`, { token: bobToken })).status).toBe(403);
      const adminToken = await signAccessToken(config.jwt, 'operator-olga', { roles: ['admin'] });
      const carolsForAdmin = (await (await api(`/runs?user=${carol}`, { token: adminToken })).json()) as { items: { runId: string }[] };
      expect(carolsForAdmin.items.map((r) => r.runId)).toEqual([runs[2], runs[1], runs[0]]);
      const everyone = (await (await api(`/runs?user=*&q=${bobRun.slice(0, 13)}`, { token: adminToken })).json()) as { items: { runId: string }[] };
      expect(everyone.items.map((r) => r.runId)).toEqual([bobRun]);
    });
  });

  describe('server-sent events', () => {
    it('sends the current state, then each change, and ends after a terminal state', async () => {
      const runId = randomUUID();
      await publishState(runId, ALICE, 0, 'CREATED');
      await publishState(runId, ALICE, 1, 'STEP_ONE');
      await projected(runId, aliceToken, 1);

      const response = await api(`/runs/${runId}/events`, { token: aliceToken });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const stream = sseReader(response);

      const current = await stream.nextEvent();
      expect(current).toMatchObject({ event: 'state', id: '1', data: { state: 'STEP_ONE', version: 1, terminal: false } });

      await publishState(runId, ALICE, 2, 'STEP_TWO');
      expect(await stream.nextEvent()).toMatchObject({ event: 'state', id: '2', data: { state: 'STEP_TWO' } });
      // A stale redelivery is not repeated.
      await publishState(runId, ALICE, 1, 'STEP_ONE');
      await publishState(runId, ALICE, 3, 'COMPLETED', { terminal: true });
      expect(await stream.nextEvent()).toMatchObject({ event: 'state', id: '3', data: { state: 'COMPLETED', terminal: true } });
      expect(await stream.nextEvent()).toBeUndefined();
      expect(stream.comments()).toBeGreaterThanOrEqual(0);
    });

    it("hears a coordinator transaction's one change as each of its transitions, in order, and each only once beside the deprecated v1s", async () => {
      const runId = randomUUID();
      await publishState(runId, ALICE, 0, 'CREATED');
      await projected(runId, aliceToken, 0);
      const stream = sseReader(await api(`/runs/${runId}/events`, { token: aliceToken }));
      expect(await stream.nextEvent()).toMatchObject({ id: '0', data: { state: 'CREATED' } });

      const transition = (version: number, stateBefore: string, stateAfter: string, terminal = false) => ({
        attemptNo: 1,
        version,
        stateBefore,
        stateAfter,
        terminal,
        stepName: `step-${version}`,
        occurredAt: new Date((clock.ms += 1000)).toISOString(),
      });
      const changes = [transition(1, 'CREATED', 'LEG_ONE_DONE'), transition(2, 'LEG_ONE_DONE', 'LEG_TWO_DONE'), transition(3, 'LEG_TWO_DONE', 'COMPLETED', true)];
      const last = changes[2]!;
      const view = { legs: ['done', 'done'] };
      // The deprecation window (ADR 0024): the first transition's v1 comes before the v2 carrying it.
      await publisher.publish(RunStateChanged, { runId, workflowType: WORKFLOW, userId: ALICE, parentRunId: null, view: { legs: ['done', 'running'] }, ...changes[0]! }, { source: '/openpaw/test-coordinator', correlationId: runId });
      await publisher.publish(RunStateChangedV2, { runId, workflowType: WORKFLOW, userId: ALICE, parentRunId: null, ...last, changes, view }, { source: '/openpaw/test-coordinator', correlationId: runId });

      expect(await stream.nextEvent()).toMatchObject({ id: '1', data: { state: 'LEG_ONE_DONE' } });
      expect(await stream.nextEvent()).toMatchObject({ id: '2', data: { state: 'LEG_TWO_DONE', view } });
      expect(await stream.nextEvent()).toMatchObject({ id: '3', data: { state: 'COMPLETED', terminal: true, view } });
      expect(await stream.nextEvent()).toBeUndefined();
      expect(await projected(runId, aliceToken, 3)).toMatchObject({ state: 'COMPLETED', view });
      const timeline = await eventually(async () => {
        const body = (await (await api(`/runs/${runId}/transitions`, { token: aliceToken })).json()) as { items?: Array<{ version: number; stateAfter: string }> };
        return body.items?.length === 4 ? body.items : undefined;
      });
      expect(timeline.map((t) => `${t.version}:${t.stateAfter}`)).toEqual(['0:CREATED', '1:LEG_ONE_DONE', '2:LEG_TWO_DONE', '3:COMPLETED']);
    });

    it('waits briefly for a run accepted a moment before it is projected, and still answers 404 for a run that never comes', async () => {
      const runId = randomUUID();
      const opening = api(`/runs/${runId}/events`, { token: aliceToken });
      // The run's first event arrives after the client opened the stream (as right after a submission).
      await new Promise((resolve) => setTimeout(resolve, 400));
      await publishState(runId, ALICE, 0, 'CREATED');
      const response = await opening;
      expect(response.status).toBe(200);
      const stream = sseReader(response);
      expect(await stream.nextEvent()).toMatchObject({ event: 'state', id: '0', data: { state: 'CREATED' } });
      await publishState(runId, ALICE, 1, 'COMPLETED', { terminal: true });
      expect(await stream.nextEvent()).toMatchObject({ event: 'state', id: '1', data: { state: 'COMPLETED' } });

      const started = Date.now();
      expect((await api(`/runs/${randomUUID()}/events`, { token: aliceToken })).status).toBe(404);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
    });

    it('sends heartbeat comments while nothing happens, and resumes after Last-Event-ID', async () => {
      const runId = randomUUID();
      await publishState(runId, ALICE, 0, 'CREATED');
      await projected(runId, aliceToken, 0);
      const controller = new AbortController();
      const response = await api(`/runs/${runId}/events`, {
        token: aliceToken,
        headers: { 'last-event-id': '0' },
        signal: controller.signal,
      });
      const stream = sseReader(response);
      await new Promise((resolve) => setTimeout(resolve, 700));
      await publishState(runId, ALICE, 1, 'WORKING');
      expect(await stream.nextEvent()).toMatchObject({ id: '1', data: { state: 'WORKING' } });
      expect(stream.comments()).toBeGreaterThanOrEqual(2);
      controller.abort();
    });
  });

  describe('cancel', () => {
    let coordinator: { stop(): void };

    /** A fake coordinator: answers each CancelRun with what `answer` decides. */
    async function fakeCoordinator(answer: (command: Envelope<MessageData<typeof CancelRun>>) => Promise<void>): Promise<{ stop(): void }> {
      const subscription = nc.subscribe(CancelRun.subject, {
        callback: (_error, message: Msg) => {
          const parsed = parseEnvelope(CancelRun, message.data);
          if (parsed.ok) void answer(parsed.envelope);
        },
      });
      // Subscribed at the server before the test's request can publish a CancelRun.
      await nc.flush();
      return { stop: () => subscription.unsubscribe() };
    }

    afterEach(() => coordinator?.stop());

    it('answers 409 with the reason when the coordinator refuses', async () => {
      const runId = randomUUID();
      await publishState(runId, ALICE, 0, 'CREATED');
      await projected(runId, aliceToken, 0);
      coordinator = await fakeCoordinator(async (command) => {
        await publisher.publish(
          InputRefused,
          {
            runId: command.data.runId,
            inputMessageId: command.id,
            inputType: CancelRun.subject,
            state: 'CREATED',
            reason: 'illegal_transition',
            detail: 'CREATED does not accept CancelRun',
          },
          { source: '/openpaw/test-coordinator', correlationId: command.data.runId, causationId: command.id },
        );
      });
      const response = await api(`/runs/${runId}/cancel`, { method: 'POST', token: aliceToken, body: JSON.stringify({ reason: 'changed my mind' }) });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({
        error: 'cancel_refused',
        reason: 'illegal_transition',
        detail: 'CREATED does not accept CancelRun',
        state: 'CREATED',
      });
    });

    it('answers 202 once the run is cancelled, with the caller as the command user and the trace continued', async () => {
      const runId = randomUUID();
      await publishState(runId, ALICE, 0, 'CREATED');
      await projected(runId, aliceToken, 0);
      const received: Envelope<MessageData<typeof CancelRun>>[] = [];
      coordinator = await fakeCoordinator(async (command) => {
        received.push(command);
        await publishState(command.data.runId, command.data.userId, 1, 'CANCELLED', { terminal: true });
      });
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const response = await api(`/runs/${runId}/cancel`, {
        method: 'POST',
        token: aliceToken,
        headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      });
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ runId, status: 'cancelled', state: 'CANCELLED', terminal: true });
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ data: { runId, userId: ALICE }, userid: ALICE, correlationid: runId });
      expect(received[0]?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

      // Now terminal: refused at once, without asking the coordinator.
      await projected(runId, aliceToken, 1);
      const again = await api(`/runs/${runId}/cancel`, { method: 'POST', token: aliceToken });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ reason: 'terminal', state: 'CANCELLED' });
      expect(received).toHaveLength(1);
    });
  });

  describe('RunSubmitter', () => {
    it('derives the run id from the idempotency key per user, publishes StartRun once, and awaits the run', async () => {
      const submitter = app.get(RunSubmitter);
      const starts: Envelope<MessageData<typeof StartRun>>[] = [];
      const subscription = nc.subscribe(StartRun.subject, {
        callback: (_error, message: Msg) => {
          const parsed = parseEnvelope(StartRun, message.data);
          if (parsed.ok) starts.push(parsed.envelope);
        },
      });
      // The subscription exists at the server before anything is published (else a loaded machine drops the first StartRun).
      await nc.flush();
      try {
        const submitOnce = async (userId: string): Promise<SubmissionRun> => {
          const { run, existing } = await submitter.lookup(WORKFLOW, userId, 'key-1');
          expect(existing).toBeUndefined();
          await submitter.submit({ run, input: { n: 1 } });
          return run;
        };
        const first = await submitOnce(ALICE);
        const duplicate = await submitOnce(ALICE);
        const bobs = await submitOnce(BOB);
        expect(duplicate.runId).toBe(first.runId);
        expect(bobs.runId).not.toBe(first.runId);
        await eventually(() => Promise.resolve(starts.length === 3 ? true : undefined));
        expect(starts[0]?.id).toBe(starts[1]?.id);
        expect(starts[0]).toMatchObject({ correlationid: first.runId, userid: ALICE, data: { runId: first.runId, workflowType: WORKFLOW, input: { n: 1 } } });

        const waiting = submitter.awaitRun(first.runId, { timeoutMs: 5000 });
        await publishState(first.runId, ALICE, 0, 'CREATED');
        await publishState(first.runId, ALICE, 1, 'COMPLETED', { terminal: true, view: { answer: 42 } });
        const outcome = await waiting;
        expect(outcome.reached).toBe(true);
        expect(outcome.run).toMatchObject({ state: 'COMPLETED', terminal: true, view: { answer: 42 } });
        // Read-your-writes: once the wait says COMPLETED, the projection every other route reads says so too.
        expect((await app.get(RunProjectionStore).find(first.runId))?.state).toBe('COMPLETED');
        // A repeated submission looks up the same run and finds it, for its route to answer from.
        expect(await submitter.lookup(WORKFLOW, ALICE, 'key-1')).toMatchObject({ run: first, existing: { runId: first.runId, state: 'COMPLETED' } });

        const timedOut = await submitter.awaitRun(randomUUID(), { timeoutMs: 100 });
        expect(timedOut).toEqual({ reached: false });
      } finally {
        subscription.unsubscribe();
      }
    });
  });
});

interface SseEvent {
  readonly event?: string;
  readonly id?: string;
  readonly data: unknown;
}

/** A text/event-stream reader (`eventsource-parser`): `nextEvent()` resolves with the next event, or `undefined` at the end. */
function sseReader(response: Response): { nextEvent(timeoutMs?: number): Promise<SseEvent | undefined>; comments(): number } {
  const body = response.body;
  if (body === null) throw new Error('no body');
  let comments = 0;
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream({ onComment: () => (comments += 1) }))
    .getReader();
  return {
    comments: () => comments,
    nextEvent: async (timeoutMs = 10_000) => {
      let timer: NodeJS.Timeout | undefined;
      const next = await Promise.race([
        reader.read(),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('no server-sent event in time')), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
      if (next.done) return undefined;
      const { event, id, data } = next.value;
      return { ...(event === undefined ? {} : { event }), ...(id === undefined ? {} : { id }), data: JSON.parse(data) as unknown };
    },
  };
}
