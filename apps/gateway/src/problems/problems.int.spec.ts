import { createHash, randomUUID } from 'node:crypto';
import { DEFAULT_ADMISSION_LIMITS } from '../admission/admission-limits.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { type ConsumerMessages, jetstream } from '@nats-io/jetstream';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import {
  AssetVersionCreated,
  deterministicUuid,
  type Envelope,
  InputRefused,
  type MessageData,
  parseEnvelope,
  RunStateChanged,
  StartRun,
  STREAMS,
  VideoRendered,
} from '@openpaw/contracts';
import { JetStreamPublisher } from '@openpaw/messaging';
import { LocalFsBlobStore } from '@openpaw/providers/blob';
import { freshDatabase, privateNatsServer, type NatsServerHandle } from '@openpaw/testing';
import sharp from 'sharp';
import { CONTENT_SECURITY_POLICY } from '../assets/blobs/send-blob.js';
import { signAccessToken } from '../auth/tokens.js';
import type { GatewayConfig } from '../config.js';
import { contentDigestOf } from './submit-problem/idempotency-key.js';
import { RETRIEVE_OR_GENERATE } from './workflow-result.js';
import { intSpecGatewayConfig, startIntSpecGateway } from '../testing/int-spec-gateway.js';

process.env['LOG_LEVEL'] ??= 'warn';

type StartRunEnvelope = Envelope<MessageData<typeof StartRun>>;
type Json = Record<string, unknown>;

const ALICE = 'user-alice';
const BOB = 'user-bob';
const UPLOAD_LIMIT = 64 * 1024;
const SOURCE = '/openpaw/test-coordinator';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(25);
  }
}

interface FakeRun {
  userId: string;
  attemptNo: number;
  version: number;
  state: string;
}

/**
 * The coordinator as the gateway sees it: reads `StartRun` from the commands stream (what is in the
 * stream is what took effect: a duplicate message id never gets there), starts or re-attempts runs
 * like the saga engine (a duplicate start of a live or succeeded run is ignored, a FAILED one gets
 * attempt n + 1 on the same row) and publishes `RunStateChanged` as the engine would.
 */
class FakeCoordinator {
  /** StartRun commands as stored in the stream, in order. */
  readonly starts: StartRunEnvelope[] = [];
  private readonly runs = new Map<string, FakeRun>();
  private readonly waiters: { match: (start: StartRunEnvelope) => boolean; resolve: (start: StartRunEnvelope) => void }[] = [];
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly publisher: JetStreamPublisher,
  ) {}

  async start(): Promise<void> {
    const consumer = await jetstream(this.nc).consumers.get(STREAMS.commands.name, { filter_subjects: StartRun.subject });
    this.messages = await consumer.consume();
    const messages = this.messages;
    this.loop = (async () => {
      for await (const message of messages) {
        const parsed = parseEnvelope(StartRun, message.data);
        if (!parsed.ok) continue;
        this.starts.push(parsed.envelope);
        await this.onStart(parsed.envelope);
        for (const waiter of [...this.waiters]) {
          if (waiter.match(parsed.envelope)) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.resolve(parsed.envelope);
          }
        }
      }
    })();
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
  }

  startsOf(runId: string): StartRunEnvelope[] {
    return this.starts.filter((start) => start.data.runId === runId);
  }

  /** Resolves with the next start that `match` accepts (register before submitting). */
  whenStarted(match: (start: StartRunEnvelope) => boolean): Promise<StartRunEnvelope> {
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  run(runId: string): FakeRun | undefined {
    return this.runs.get(runId);
  }

  private async onStart(start: StartRunEnvelope): Promise<void> {
    if ((start.data.input['submission'] as Json)['text'] === 'refuse me') {
      await this.publisher.publish(
        InputRefused,
        {
          runId: start.data.runId,
          inputMessageId: start.id,
          inputType: StartRun.subject,
          state: null,
          reason: 'invalid_input',
          detail: 'invalid start input: subscriptionTier: Invalid option',
        },
        { source: SOURCE, correlationId: start.data.runId, causationId: start.id },
      );
      return;
    }
    const existing = this.runs.get(start.data.runId);
    if (existing !== undefined && existing.state !== 'FAILED') return;
    const run: FakeRun = {
      userId: start.data.userId,
      attemptNo: existing === undefined ? 1 : existing.attemptNo + 1,
      version: existing?.version ?? 0,
      state: 'INITIATED',
    };
    this.runs.set(start.data.runId, run);
    await this.emit(start.data.runId, 'INITIATED');
    await this.emit(start.data.runId, 'INGESTING');
  }

  /** Moves a run on and publishes the change, the view being spec 01's WorkflowResult. */
  async emit(runId: string, state: string, options: { output?: Json; outcome?: string; errorCode?: string } = {}): Promise<void> {
    const run = this.runs.get(runId);
    if (run === undefined) throw new Error(`no run ${runId}`);
    const stateBefore = run.version === 0 ? null : run.state;
    run.version += 1;
    run.state = state;
    const terminal = ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(state);
    const status = { SUCCEEDED: 'succeeded', FAILED: 'failed', CANCELLED: 'cancelled' }[state] ?? 'running';
    const view = {
      status,
      state,
      outcome: options.outcome ?? null,
      output: options.output ?? null,
      workflow_run_id: runId,
      attempt_no: run.attemptNo,
      cost_usd: terminal ? 0.0123 : null,
      duration_ms: terminal ? 1840 : null,
      error_code: options.errorCode ?? null,
    };
    await this.publisher.publish(
      RunStateChanged,
      {
        runId,
        workflowType: RETRIEVE_OR_GENERATE,
        userId: run.userId,
        attemptNo: run.attemptNo,
        version: run.version,
        stateBefore,
        stateAfter: state,
        terminal,
        stepName: state.toLowerCase(),
        parentRunId: null,
        view,
        occurredAt: new Date().toISOString(),
      },
      { source: SOURCE, correlationId: runId, userId: run.userId },
    );
  }
}

describe('problems and assets (real NATS + PostgreSQL, fake coordinator)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;
  let app: INestApplication;
  let url: string;
  let config: GatewayConfig;
  let blobDir: string;
  let blobs: LocalFsBlobStore;
  let coordinator: FakeCoordinator;
  let aliceToken: string;
  let bobToken: string;

  function api(path: string, init: RequestInit & { token?: string; json?: unknown } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`);
    const { json, token: _token, ...rest } = init;
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${url}${path}`, { ...rest, headers, ...(json === undefined ? {} : { body: JSON.stringify(json) }) });
  }

  async function submitText(text: string, token = aliceToken, query = ''): Promise<{ status: number; body: Json }> {
    const response = await api(`/problems${query}`, { method: 'POST', token, json: { text } });
    return { status: response.status, body: (await response.json()) as Json };
  }

  function upload(bytes: Uint8Array, options: { filename?: string; type?: string; field?: string; intent?: string } = {}): Promise<Response> {
    const form = new FormData();
    form.set(options.field ?? 'file', new Blob([bytes], { type: options.type ?? 'image/png' }), options.filename ?? 'photo.png');
    if (options.intent !== undefined) form.set('intent', options.intent);
    return api('/problems', { method: 'POST', token: aliceToken, body: form });
  }

  /** Waits until the projection shows the run in `state` (and attempt), as its owner sees it. */
  async function projected(runId: string, state: string, token = aliceToken, attemptNo = 1): Promise<Json> {
    return eventually(async () => {
      const response = await api(`/runs/${runId}`, { token });
      if (response.status !== 200) return undefined;
      const run = (await response.json()) as Json;
      return run['state'] === state && run['attemptNo'] === attemptNo ? run : undefined;
    });
  }

  beforeAll(async () => {
    nats = await privateNatsServer();
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-problems-blobs-'));
    config = intSpecGatewayConfig(
      { natsUrl: nats.url, databaseUrl: await freshDatabase('gateway_problems') },
      {
        // Generous for the free and pro users of these tests; the enterprise tier is squeezed so one
        // test can watch admission control answer 429.
        admission: {
          ...DEFAULT_ADMISSION_LIMITS,
          tiers: {
            free: { ratePerSecond: 1_000, burst: 1_000, maxInFlight: 1_000 },
            pro: { ratePerSecond: 1_000, burst: 1_000, maxInFlight: 1_000 },
            enterprise: { ratePerSecond: 0.2, burst: 1, maxInFlight: 1_000 },
          },
        },
        uploadMaxBytes: UPLOAD_LIMIT,
        blobEnv: { OPENPAW_BLOB_DIR: blobDir, OPENPAW_BLOB_SHARE_SECRET: 'share-secret-of-the-test' },
      },
    );
    ({ app, url } = await startIntSpecGateway(config));
    // The assets service's view of the same blob directory (it writes solutions and videos there).
    blobs = new LocalFsBlobStore({ rootDir: blobDir, shareSecret: 'share-secret-of-the-test', shareBaseUrl: `${url}/v1/shared` });
    nc = await connect({ servers: nats.url, name: 'problems-int-spec' });
    publisher = new JetStreamPublisher(jetstream(nc));
    coordinator = new FakeCoordinator(nc, publisher);
    await coordinator.start();
    aliceToken = await signAccessToken(config.jwt, ALICE, { tier: 'pro' });
    bobToken = await signAccessToken(config.jwt, BOB);

    // History for ETAs: three finished runs of the workflow taking 4, 6 and 8 s (median 6 s).
    const base = Date.now() - 60_000;
    for (const [i, durationMs] of [4000, 6000, 8000].entries()) {
      const runId = randomUUID();
      for (const [version, state] of ['INITIATED', 'SUCCEEDED'].entries()) {
        await publisher.publish(
          RunStateChanged,
          {
            runId,
            workflowType: RETRIEVE_OR_GENERATE,
            userId: 'user-history',
            attemptNo: 1,
            version: version + 1,
            stateBefore: version === 0 ? null : 'INITIATED',
            stateAfter: state,
            terminal: state === 'SUCCEEDED',
            stepName: state.toLowerCase(),
            parentRunId: null,
            view: state === 'SUCCEEDED' ? { status: 'succeeded', state, duration_ms: durationMs } : { status: 'running', state },
            occurredAt: new Date(base + i * 10_000 + version * durationMs).toISOString(),
          },
          { source: SOURCE, correlationId: runId },
        );
      }
    }
    const historyToken = await signAccessToken(config.jwt, 'user-history');
    await eventually(async () => {
      const page = (await (await api('/runs?state=SUCCEEDED', { token: historyToken })).json()) as { items: unknown[] };
      return page.items.length === 3 ? true : undefined;
    });
  });

  afterAll(async () => {
    await coordinator?.stop();
    await app?.close();
    await nc?.close();
    await nats?.dispose();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  describe('admission control', () => {
    it('answers a new run over the tier rate 429 with Retry-After, starting nothing; a known run is still answered', async () => {
      const token = await signAccessToken(config.jwt, 'user-squeezed', { tier: 'enterprise' });
      const starts: string[] = [];
      const subscription = nc.subscribe(StartRun.subject, {
        callback: (_error, message: Msg) => {
          const parsed = parseEnvelope(StartRun, message.data);
          if (parsed.ok && parsed.envelope.data.userId === 'user-squeezed') starts.push(parsed.envelope.data.runId);
        },
      });
      const first = await submitText('What is 40 + 2?', token);
      expect(first.status).toBe(202);
      const response = await api('/problems', { method: 'POST', token, json: { text: 'What is 40 + 3?' } });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await response.json()).toMatchObject({ error: 'too_many_requests', reason: 'rate_limited' });
      await delay(300);
      subscription.unsubscribe();
      // Only the admitted run was started.
      expect(new Set(starts)).toEqual(new Set([first.body['run_id']]));
      // The same problem again is its existing run, not a new one: answered, never limited.
      const again = await submitText('What is 40 + 2?', token);
      expect(again.status).toBe(202);
      expect(again.body['run_id']).toBe(first.body['run_id']);
    });
  });

  describe('admission of images in megapixels', () => {
    /** A `width` × `height` PNG of one colour (1-bit palette: a few KB however large). */
    const bigPng = (width: number, height: number, shade: number): Promise<Buffer> =>
      sharp({ create: { width, height, channels: 3, background: { r: shade, g: 255 - shade, b: 128 } } })
        .png({ palette: true, colours: 2 })
        .toBuffer();

    it('refuses an image larger than ingestion decodes with 400 naming its size, starting nothing', async () => {
      const response = await upload(await bigPng(8000, 6000, 1));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'validation_failed', issues: [{ path: 'file', message: expect.stringContaining('8000×6000 pixels (48 MP)') }] });
    });

    it('answers 429 with Retry-After when the images not yet read would pass the megapixel bound, and admits again once they are read', async () => {
      const limit = config.admission.maxIngestingMegapixels;
      // 36 MP each: as many as fit under the bound are admitted (their runs wait in INGESTING here).
      const fitting = Math.floor(limit / 36);
      const admitted: string[] = [];
      for (let i = 0; i < fitting; i += 1) {
        const response = await upload(await bigPng(6000, 6000, 10 + i));
        expect(response.status).toBe(202);
        admitted.push(((await response.json()) as Json)['run_id'] as string);
      }
      const oneMore = await bigPng(6000, 6000, 200);
      const refused = await upload(oneMore);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await refused.json()).toMatchObject({ error: 'too_many_requests', reason: 'platform_busy', message: expect.stringContaining(`limit of ${limit} MP`) });
      // Ingestion reads them: their runs move on, and the bound has room again.
      for (const runId of admitted) await coordinator.emit(runId, 'RETRIEVING');
      for (const runId of admitted) await projected(runId, 'RETRIEVING');
      // Admitted again once a platform reading taken after they moved on counts them read (one reading
      // is shared by the starts of the next 100 ms): a refused upload starts nothing, so asking again is safe.
      const readmitted = await eventually(async () => {
        const response = await upload(oneMore);
        return response.status === 202 ? response : undefined;
      });
      expect(readmitted.status).toBe(202);
    });
  });

  describe('submitting text', () => {
    let runId: string;

    it('answers 202 with the run id and state, and sends StartRun with the workflow input', async () => {
      const { status, body } = await submitText('2x + 3 = 7');
      expect(status).toBe(202);
      runId = body['run_id'] as string;
      // The gateway waited for the coordinator's first answer: the run's first state.
      expect(body).toMatchObject({ state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1, eta_sample_size: 3 });
      expect(body['eta_seconds']).toBeGreaterThan(5);
      expect(body['eta_seconds']).toBeLessThanOrEqual(6);
      expect(body['links']).toEqual({
        run: `/runs/${runId}`,
        events: `/runs/${runId}/events`,
        solution: `/runs/${runId}/solution`,
        video: `/runs/${runId}/video`,
      });

      const [start] = await eventually(() => (coordinator.startsOf(runId).length === 1 ? coordinator.startsOf(runId) : undefined));
      expect(start).toMatchObject({
        id: deterministicUuid('StartRun', runId, '1'),
        userid: ALICE,
        correlationid: runId,
        data: {
          runId,
          workflowType: 'retrieve_or_generate',
          userId: ALICE,
          input: {
            submission: { kind: 'text', text: '2x + 3 = 7' },
            intent: 'solve',
            subscriptionTier: 'pro',
            contentSensitivity: 'standard',
            contentDigest: contentDigestOf({ kind: 'text', text: '2x + 3 = 7' }),
          },
        },
      });
      // Bob's token has no tier claim: the free tier.
      const bobs = await submitText('2x + 3 = 7', bobToken);
      expect(bobs.body['run_id']).not.toBe(runId);
      const [bobStart] = await eventually(() => {
        const starts = coordinator.startsOf(bobs.body['run_id'] as string);
        return starts.length === 1 ? starts : undefined;
      });
      expect(bobStart?.data.input).toMatchObject({ subscriptionTier: 'free' });
    });

    it('while it runs, answers the same text (spelled differently) with the same run, its state and an ETA, and starts nothing', async () => {
      await projected(runId, 'INGESTING');
      const { status, body } = await submitText('  2X+3 =  7\n');
      expect(status).toBe(202);
      expect(body).toMatchObject({ run_id: runId, state: 'INGESTING', status: 'running', attempt_no: 1, eta_sample_size: 3 });
      // The median (6 s) minus the time since the attempt's first event.
      expect(body['eta_seconds']).toBeGreaterThan(0);
      expect(body['eta_seconds']).toBeLessThanOrEqual(6);
      await delay(200);
      expect(coordinator.startsOf(runId)).toHaveLength(1);
    });

    it('answers the same text sent twice before the coordinator reports it with one run and one StartRun in the stream', async () => {
      const published: string[] = [];
      const subscription = nc.subscribe(StartRun.subject, {
        callback: (_error, message: Msg) => {
          const parsed = parseEnvelope(StartRun, message.data);
          if (parsed.ok) published.push(parsed.envelope.id);
        },
      });
      try {
        const [first, second] = await Promise.all([submitText('What is 12 * (3 + 4)?'), submitText('what is 12*(3+4)?')]);
        expect(first.body['run_id']).toBe(second.body['run_id']);
        const id = first.body['run_id'] as string;
        await eventually(() => (published.length >= 2 ? true : undefined));
        // Both were published with the same message id; the stream kept one.
        expect(new Set(published)).toEqual(new Set([deterministicUuid('StartRun', id, '1')]));
        await projected(id, 'INGESTING');
        expect(coordinator.startsOf(id)).toHaveLength(1);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('after SUCCEEDED, answers 200 with the cached WorkflowResult at once, without a re-run', async () => {
      const assetVersionId = randomUUID();
      await coordinator.emit(runId, 'RETRIEVING');
      await coordinator.emit(runId, 'SUCCEEDED', {
        outcome: 'new',
        output: { asset_version_id: assetVersionId, video_pending: true, is_approximate: false },
      });
      await projected(runId, 'SUCCEEDED');

      const { status, body } = await submitText('2x + 3 = 7');
      expect(status).toBe(200);
      expect(body).toMatchObject({ run_id: runId, state: 'SUCCEEDED', status: 'succeeded', terminal: true, attempt_no: 1 });
      expect(body['result']).toEqual({
        status: 'succeeded',
        state: 'SUCCEEDED',
        outcome: 'new',
        output: { asset_version_id: assetVersionId, video_pending: true, is_approximate: false },
        workflow_run_id: runId,
        attempt_no: 1,
        cost_usd: 0.0123,
        duration_ms: 1840,
        error_code: null,
      });
      expect(body).not.toHaveProperty('eta_seconds');

      // GET /runs/:id: the WorkflowResult (view) plus the state.
      const run = (await (await api(`/runs/${runId}`, { token: aliceToken })).json()) as Json;
      expect(run).toMatchObject({ runId, workflowType: 'retrieve_or_generate', state: 'SUCCEEDED', terminal: true, view: body['result'] });
      await delay(200);
      expect(coordinator.startsOf(runId)).toHaveLength(1);
    });
  });

  describe('a failed run submitted again', () => {
    it('is re-attempted on the same run with attempt 2 (a new StartRun message), and ?wait follows the new attempt', async () => {
      const first = await submitText('x/2 = 9');
      const runId = first.body['run_id'] as string;
      await projected(runId, 'INGESTING');
      await coordinator.emit(runId, 'FAILED', { errorCode: 'media_rejected' });
      await projected(runId, 'FAILED');

      const again = await submitText('x / 2 = 9');
      expect(again.status).toBe(202);
      expect(again.body).toMatchObject({ run_id: runId, state: 'INITIATED', status: 'running', attempt_no: 2 });
      const starts = await eventually(() => (coordinator.startsOf(runId).length === 2 ? coordinator.startsOf(runId) : undefined));
      expect(starts.map((s) => s.id)).toEqual([deterministicUuid('StartRun', runId, '1'), deterministicUuid('StartRun', runId, '2')]);
      // The same run and input, as this submission spelled it.
      expect(starts[1]?.data).toEqual({ ...starts[0]?.data, input: { ...starts[0]?.data.input, submission: { kind: 'text', text: 'x / 2 = 9' } } });
      await projected(runId, 'INGESTING', aliceToken, 2);

      // The previous attempt's FAILED does not end the wait; this attempt's SUCCEEDED does.
      const waiting = submitText('x/2 = 9', aliceToken, '?wait=10');
      await delay(300);
      await coordinator.emit(runId, 'SUCCEEDED', { outcome: 'hit', output: { asset_version_id: randomUUID(), video_pending: false, is_approximate: false } });
      const { status, body } = await waiting;
      expect(status).toBe(200);
      expect(body).toMatchObject({ run_id: runId, state: 'SUCCEEDED', status: 'succeeded', attempt_no: 2, result: { outcome: 'hit', attempt_no: 2 } });
      expect(coordinator.startsOf(runId)).toHaveLength(2);
    });
  });

  describe('?wait', () => {
    it('answers 200 as soon as the run ends within the wait', async () => {
      const started = coordinator.whenStarted((s) => (s.data.input['submission'] as Json)['text'] === '3y = 12');
      const began = Date.now();
      const waiting = submitText('3y = 12', aliceToken, '?wait=20');
      const start = await started;
      await projected(start.data.runId, 'INGESTING');
      await coordinator.emit(start.data.runId, 'SUCCEEDED', { outcome: 'new', output: { asset_version_id: randomUUID() } });
      const { status, body } = await waiting;
      expect(status).toBe(200);
      expect(body).toMatchObject({ run_id: start.data.runId, state: 'SUCCEEDED', terminal: true });
      expect(Date.now() - began).toBeLessThan(10_000);
    });

    it('answers 202 with the current state when the wait ends first, and refuses waits beyond 60 s', async () => {
      const began = Date.now();
      const { status, body } = await submitText('4z = 2', aliceToken, '?wait=1');
      expect(Date.now() - began).toBeGreaterThanOrEqual(950);
      expect(status).toBe(202);
      expect(body).toMatchObject({ state: 'INGESTING', status: 'running', terminal: false });

      for (const wait of ['61', '-1', 'soon']) {
        const refused = await submitText('4z = 2', aliceToken, `?wait=${wait}`);
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ error: 'validation_failed', location: 'query', issues: [{ path: 'wait' }] });
      }
    });
  });

  it('answers 422 with the reason when the coordinator refuses the start, and nothing is left running', async () => {
    const { status, body } = await submitText('refuse me');
    expect(status).toBe(422);
    expect(body).toEqual({ error: 'start_refused', reason: 'invalid_input', message: 'invalid start input: subscriptionTier: Invalid option' });
  });

  describe('validation', () => {
    it('answers 400 naming the field for bad JSON bodies, 415 for other content types', async () => {
      const cases: [unknown, string][] = [
        [{}, 'text'],
        [{ text: '   ' }, 'text'],
        [{ text: 'a', url: 'https://example.com/a' }, 'url'],
        [{ url: 'ftp://example.com/a' }, 'url'],
        [{ text: '1 + 1', intent: 'Do It!' }, 'intent'],
        [{ text: '2x\u0000 = 4' }, 'text'],
        [{ text: '2x = 4 \uD835' }, 'text'],
      ];
      for (const [json, path] of cases) {
        const response = await api('/problems', { method: 'POST', token: aliceToken, json });
        expect([JSON.stringify(json), response.status]).toEqual([JSON.stringify(json), 400]);
        expect(await response.json()).toMatchObject({ error: 'validation_failed', location: 'body', issues: [{ path }] });
      }
      const plain = await api('/problems', { method: 'POST', token: aliceToken, body: '2x = 4', headers: { 'content-type': 'text/plain' } });
      expect(plain.status).toBe(415);
      expect(await plain.json()).toMatchObject({ error: 'unsupported_media_type' });
      expect((await api('/problems', { method: 'POST', json: { text: '1 + 1' } })).status).toBe(401);
    });
  });

  describe('image uploads', () => {
    let png: Buffer;

    beforeAll(async () => {
      png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 255, g: 255, b: 255 } } })
        .png()
        .toBuffer();
    });

    it('stores the image in blob storage and starts the run with its blob key', async () => {
      const response = await upload(png, { filename: 'photo.png', intent: 'solve' });
      expect(response.status).toBe(202);
      const body = (await response.json()) as Json;
      const runId = body['run_id'] as string;
      const sha256 = createHash('sha256').update(png).digest('hex');
      const [start] = await eventually(() => (coordinator.startsOf(runId).length === 1 ? coordinator.startsOf(runId) : undefined));
      const blobKey = `uploads/${ALICE}/${sha256}`;
      expect(start?.data.input).toEqual({
        submission: { kind: 'upload', blobKey, contentType: 'image/png', filename: 'photo.png', byteLength: png.length },
        intent: 'solve',
        subscriptionTier: 'pro',
        contentSensitivity: 'standard',
        contentDigest: `image:${sha256}`,
      });
      const stored = await blobs.get(blobKey);
      expect(stored.body.equals(png)).toBe(true);
      expect(stored.info.contentType).toBe('image/png');
      // The message carries the key, never the bytes.
      expect(JSON.stringify(start).length).toBeLessThan(2000);

      // The same photo under another name is the same problem.
      const again = await upload(png, { filename: 'IMG_0001.PNG' });
      expect(((await again.json()) as Json)['run_id']).toBe(runId);
    });

    it('answers 413 naming the limit for a file that is too large', async () => {
      // Just over the limit, and far over it (the client is still sending when the answer comes).
      for (const size of [UPLOAD_LIMIT + 1, 8 * 1024 * 1024]) {
        const response = await upload(Buffer.concat([png, Buffer.alloc(size)]));
        expect(response.status).toBe(413);
        expect(await response.json()).toEqual({
          error: 'payload_too_large',
          message: 'the file is larger than the upload limit of 64 KB',
          field: 'file',
          limit_bytes: UPLOAD_LIMIT,
        });
      }
    });

    it('answers 400 naming the field for a missing, empty or misnamed file, and 415 for a file that is not an image', async () => {
      const noFile = new FormData();
      noFile.set('intent', 'solve');
      const missing = await api('/problems', { method: 'POST', token: aliceToken, body: noFile });
      expect(missing.status).toBe(400);
      expect(await missing.json()).toEqual({
        error: 'validation_failed',
        location: 'body',
        issues: [{ path: 'file', message: 'an image file is required as multipart field "file"' }],
      });

      const empty = await upload(new Uint8Array(0));
      expect(empty.status).toBe(400);
      expect(await empty.json()).toMatchObject({ issues: [{ path: 'file', message: 'the file is empty' }] });

      const misnamed = await upload(png, { field: 'image' });
      expect(misnamed.status).toBe(400);
      expect(await misnamed.json()).toMatchObject({ error: 'validation_failed', issues: [{ path: 'image' }] });

      const text = await upload(Buffer.from('2x + 3 = 7'), { type: 'image/png', filename: 'fake.png' });
      expect(text.status).toBe(415);
      expect(await text.json()).toMatchObject({ error: 'unsupported_media_type', field: 'file' });

      const badIntent = await upload(png, { intent: 'NOPE NOPE' });
      expect(badIntent.status).toBe(400);
      expect(await badIntent.json()).toMatchObject({ issues: [{ path: 'intent' }] });
    });
  });

  describe('assets', () => {
    const html = '<!doctype html><html><head><style>body{font-family:serif}</style></head><body><h1>x = 2</h1></body></html>';
    const mp4 = Buffer.from(Array.from({ length: 4096 }, (_v, i) => i % 251));
    let runId: string;
    let problemId: string;
    let solutionId: string;

    async function publishAsset(data: MessageData<typeof AssetVersionCreated>, userId?: string): Promise<void> {
      await publisher.publish(AssetVersionCreated, data, {
        source: '/openpaw/assets',
        correlationId: data.runId,
        ...(userId === undefined ? {} : { userId }),
      });
    }

    beforeAll(async () => {
      const submitted = await submitText('5w - 5 = 5');
      runId = submitted.body['run_id'] as string;
      await projected(runId, 'INGESTING');
      problemId = randomUUID();
      solutionId = randomUUID();
      const storageKey = `solutions/${problemId}/${solutionId}.html`;
      await blobs.put(storageKey, html, { contentType: 'text/html' });
      await publishAsset(
        { runId, commandId: randomUUID(), problemId, assetVersionId: solutionId, assetType: 'solution_html', version: 1, storageKey, contentType: 'text/html' },
        ALICE,
      );
      await coordinator.emit(runId, 'SUCCEEDED', { outcome: 'new', output: { asset_version_id: solutionId, video_pending: true, is_approximate: false } });
      await projected(runId, 'SUCCEEDED');
      await eventually(async () => ((await api(`/assets/${solutionId}`, { token: aliceToken })).status === 200 ? true : undefined));
    });

    it('serves the metadata and the content, HTML with the strict CSP', async () => {
      const metadata = (await (await api(`/assets/${solutionId}`, { token: aliceToken })).json()) as Json;
      expect(metadata).toEqual({
        asset_version_id: solutionId,
        problem_id: problemId,
        asset_type: 'solution_html',
        version: 1,
        content_type: 'text/html',
        storage_key: `solutions/${problemId}/${solutionId}.html`,
        created_at: expect.any(String),
        content_url: `/assets/${solutionId}/content`,
        video_asset_version_id: null,
      });

      const content = await api(`/assets/${solutionId}/content`, { token: aliceToken });
      expect(content.status).toBe(200);
      expect(content.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(content.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:");
      expect(content.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await content.text()).toBe(html);

      const solution = await api(`/runs/${runId}/solution`, { token: aliceToken });
      expect(solution.status).toBe(200);
      expect(solution.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(solution.headers.get('content-location')).toBe(`/assets/${solutionId}/content`);
      expect(await solution.text()).toBe(html);
    });

    it("answers 404 for another user's asset until one of their runs is served it", async () => {
      for (const path of [`/assets/${solutionId}`, `/assets/${solutionId}/content`, `/runs/${runId}/solution`]) {
        const response = await api(path, { token: bobToken });
        expect([path, response.status]).toEqual([path, 404]);
      }
      expect((await api(`/assets/${solutionId}/share`, { method: 'POST', token: bobToken })).status).toBe(404);
      expect((await api(`/assets/${randomUUID()}`, { token: aliceToken })).status).toBe(404);

      // Bob submits the same problem and retrieval hits Alice's solution: now he may read it.
      const bobs = await submitText('5w - 5 = 5', bobToken);
      const bobRun = bobs.body['run_id'] as string;
      await projected(bobRun, 'INGESTING', bobToken);
      await coordinator.emit(bobRun, 'SUCCEEDED', { outcome: 'hit', output: { asset_version_id: solutionId, video_pending: false, is_approximate: false } });
      await projected(bobRun, 'SUCCEEDED', bobToken);
      expect((await api(`/assets/${solutionId}`, { token: bobToken })).status).toBe(200);
      expect(await (await api(`/runs/${bobRun}/solution`, { token: bobToken })).text()).toBe(html);
    });

    it('says the video is pending until it is rendered, then serves it (with byte ranges)', async () => {
      const pending = await api(`/runs/${runId}/video`, { token: aliceToken });
      expect(pending.status).toBe(404);
      expect(await pending.json()).toEqual({ error: 'video_pending', message: 'the video is not rendered yet', video_pending: true });

      // The video run (a background run of the same user) registers the video; this envelope carries no user.
      const videoRun = randomUUID();
      const videoId = randomUUID();
      const storageKey = `videos/${problemId}/${videoId}.mp4`;
      await blobs.put(storageKey, mp4, { contentType: 'video/mp4' });
      await publisher.publish(
        VideoRendered,
        { runId: videoRun, commandId: randomUUID(), solutionAssetVersionId: solutionId, videoAssetVersionId: videoId, storageKey, durationMs: 12_000 },
        { source: '/openpaw/assets', correlationId: videoRun },
      );
      await publishAsset({ runId: videoRun, commandId: randomUUID(), problemId, assetVersionId: videoId, assetType: 'video', version: 1, storageKey, contentType: 'video/mp4' });

      const video = await eventually(async () => {
        const response = await api(`/runs/${runId}/video`, { token: aliceToken });
        return response.status === 200 ? response : undefined;
      });
      expect(video.headers.get('content-type')).toBe('video/mp4');
      expect(Buffer.from(await video.arrayBuffer()).equals(mp4)).toBe(true);

      const range = await api(`/runs/${runId}/video`, { token: aliceToken, headers: { range: 'bytes=100-199' } });
      expect(range.status).toBe(206);
      expect(range.headers.get('content-range')).toBe(`bytes 100-199/${mp4.length}`);
      expect(Buffer.from(await range.arrayBuffer()).equals(mp4.subarray(100, 200))).toBe(true);

      // Visible with its solution; the solution's metadata names it.
      expect(await (await api(`/assets/${videoId}`, { token: aliceToken })).json()).toMatchObject({
        asset_type: 'video',
        problem_id: problemId,
        solution_asset_version_id: solutionId,
        duration_ms: 12_000,
        content_type: 'video/mp4',
      });
      expect(await (await api(`/assets/${solutionId}`, { token: aliceToken })).json()).toMatchObject({ video_asset_version_id: videoId });
      expect((await api(`/assets/${videoId}`, { token: bobToken })).status).toBe(200);
      expect((await api(`/assets/${videoId}`, { token: await signAccessToken(config.jwt, 'user-carol') })).status).toBe(404);
    });

    it('makes share links that work without a token until they expire', async () => {
      const created = await api(`/assets/${solutionId}/share`, { method: 'POST', token: aliceToken, json: { expires_in_seconds: 2 } });
      expect(created.status).toBe(201);
      const link = (await created.json()) as { url: string; expires_at: string; asset_version_id: string };
      expect(link.asset_version_id).toBe(solutionId);
      // OPENPAW_BLOB_SHARE_BASE_URL is the gateway's public URL (here the default; the test's port is random).
      expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/v1\/shared\/[\w-]+\.[\w-]+$/);
      const token = link.url.slice(link.url.lastIndexOf('/') + 1);
      const shareUrl = `${url}/v1/shared/${token}`;

      const shared = await fetch(shareUrl);
      expect(shared.status).toBe(200);
      expect(shared.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(shared.headers.get('cache-control')).toBe('no-store');
      expect(await shared.text()).toBe(html);

      const forged = `${token.split('.')[0]}.${Buffer.from('not the signature').toString('base64url')}`;
      const tampered = await fetch(`${url}/v1/shared/${forged}`);
      expect(tampered.status).toBe(403);
      expect(await tampered.json()).toMatchObject({ error: 'share_link_tampered' });

      const badBody = await api(`/assets/${solutionId}/share`, { method: 'POST', token: aliceToken, json: { expires_in_seconds: 0 } });
      expect(badBody.status).toBe(400);
      expect(await badBody.json()).toMatchObject({ issues: [{ path: 'expires_in_seconds' }] });

      await delay(Math.max(0, Date.parse(link.expires_at) - Date.now()) + 100);
      const expired = await fetch(shareUrl);
      expect(expired.status).toBe(403);
      expect(await expired.json()).toEqual({ error: 'share_link_expired', message: 'this share link has expired: ask for a new one' });
    });

    it('says why a run has no solution', async () => {
      const running = await submitText('7v = 49');
      const id = running.body['run_id'] as string;
      await projected(id, 'INGESTING');
      const pending = await api(`/runs/${id}/solution`, { token: aliceToken });
      expect(pending.status).toBe(404);
      expect(await pending.json()).toMatchObject({ error: 'solution_pending', state: 'INGESTING' });
      await coordinator.emit(id, 'FAILED', { errorCode: 'solve_failed' });
      await projected(id, 'FAILED');
      expect(await (await api(`/runs/${id}/solution`, { token: aliceToken })).json()).toMatchObject({ error: 'no_solution', state: 'FAILED' });
      expect(await (await api(`/runs/${id}/video`, { token: aliceToken })).json()).toMatchObject({ error: 'no_video', video_pending: false });
    });
  });

  it('documents the new routes in OpenAPI', async () => {
    const openapi = (await (await api('/docs/openapi.json')).json()) as { paths: Record<string, Record<string, Json>> };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        '/problems',
        '/assets/{assetVersionId}',
        '/assets/{assetVersionId}/content',
        '/assets/{assetVersionId}/share',
        '/runs/{id}/solution',
        '/runs/{id}/video',
        '/v1/shared/{token}',
      ]),
    );
    const submit = openapi.paths['/problems']?.['post'] as {
      requestBody: { content: Record<string, unknown> };
      parameters: { name: string }[];
      responses: Record<string, unknown>;
    };
    expect(Object.keys(submit.requestBody.content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(submit.parameters.map((p) => p.name)).toEqual(['wait']);
    expect(Object.keys(submit.responses).sort()).toEqual(['200', '202', '400', '401', '413', '415', '422', '429']);
    expect(openapi.paths['/v1/shared/{token}']?.['get']).not.toHaveProperty('security');
  });
});
