import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { EXIT, runCli } from './cli.js';
import type { CliIo } from './io.js';
import { localBlobPath } from './local-blob-path.js';
import { CLI_VERSION, JSON_OUTPUT_VERSION } from './version.js';

const SECRET = 'cli-test-secret-cli-test-secret-0123';
const SOLUTION_ID = '7a0b5c1e-2d3f-4a5b-8c6d-9e0f1a2b3c4d';
const STATES = ['INITIATED', 'INGESTING', 'RETRIEVING', 'GENERATING_SOLUTION', 'REGISTERING', 'INDEXING', 'SUCCEEDED'];

interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

interface RunScript {
  /** Answer of POST /problems. */
  readonly submission: { status: number; body: Record<string, unknown> };
  /** Each connection to /events: 404 (not known yet), or events to send, then `end` or `drop`. */
  readonly connections: ({ notFound: true } | { events: Record<string, unknown>[]; then: 'end' | 'drop' })[];
  readonly final: Record<string, unknown>;
}

function run(runId: string, version: number, state: string, attemptNo = 1, view: Record<string, unknown> = { status: 'running', state }): Record<string, unknown> {
  const terminal = ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(state);
  return { runId, workflowType: 'retrieve_or_generate', state, terminal, attemptNo, version, parentRunId: null, view, createdAt: '', updatedAt: '' };
}

const succeededView = (runId: string, attemptNo = 1): Record<string, unknown> => ({
  status: 'succeeded',
  state: 'SUCCEEDED',
  outcome: 'new',
  output: { asset_version_id: SOLUTION_ID, video_pending: true, is_approximate: false },
  workflow_run_id: runId,
  attempt_no: attemptNo,
  cost_usd: 0.0123,
  duration_ms: 1840,
  error_code: null,
});

/** A stand-in for the gateway, speaking its wire format (JSON bodies, SSE with ids, 404 before a run is known). */
class FakeGateway {
  readonly requests: Recorded[] = [];
  script: RunScript | undefined;
  private connection = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const recorded = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) };
        this.requests.push(recorded);
        this.handle(recorded, response);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  reset(script: RunScript): void {
    this.script = script;
    this.connection = 0;
    this.requests.length = 0;
  }

  private json(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  /** The stored keys (`/research/keys`): a key test with `?wait=` is answered with its report (200), or, with `keyTestsReported: false`, unreported (202). */
  readonly keys = new Map<string, { apiKey: string; lastTest: Record<string, unknown> | null }>();
  keyTestsReported = true;

  private handleKeys(request: Recorded, response: ServerResponse): boolean {
    const url = new URL(request.path, 'http://gateway');
    const [, provider, action] = /^\/research\/keys(?:\/(\w+))?(?:\/(test))?$/.exec(url.pathname) ?? [];
    if (!url.pathname.startsWith('/research/keys')) return false;
    const key = provider === undefined ? undefined : this.keys.get(provider);
    if (request.method === 'GET' && provider === undefined) {
      this.json(response, 200, { keys: [...this.keys].map(([name, stored]) => ({ provider: name, updatedAt: '2026-11-27T18:00:00.000Z', lastTest: stored.lastTest })) });
    } else if (request.method === 'PUT' && provider !== undefined && action === undefined) {
      this.keys.set(provider, { apiKey: (JSON.parse(request.body.toString()) as { apiKey: string }).apiKey, lastTest: null });
      response.writeHead(204).end();
    } else if (request.method === 'DELETE' && provider !== undefined) {
      if (key === undefined) this.json(response, 404, { error: 'not_found', message: `no ${provider} key` });
      else response.writeHead(204).end(void this.keys.delete(provider));
    } else if (request.method === 'POST' && action === 'test' && provider !== undefined) {
      if (key === undefined) return this.json(response, 404, { error: 'not_found', message: `no ${provider} key` }), true;
      const testId = `00000000-0000-4000-8000-00000000000${this.keys.size}`;
      const requestedAt = '2026-11-27T19:00:00.000Z';
      const reported = this.keyTestsReported && Number(url.searchParams.get('wait') ?? 0) > 0;
      key.lastTest = reported
        ? { testId, requestedAt, testedAt: '2026-11-27T19:00:01.000Z', outcome: 'quota', model: `${provider}/model`, latencyMs: 420, reason: `${provider}: HTTP 429: You exceeded your current quota` }
        : { testId, requestedAt, testedAt: null, outcome: null, model: null, latencyMs: null, reason: null };
      this.json(response, reported ? 200 : 202, { testId, provider, requestedAt, lastTest: key.lastTest });
    } else return false;
    return true;
  }

  private handle(request: Recorded, response: ServerResponse): void {
    if (this.handleKeys(request, response)) return;
    const script = this.script;
    if (script === undefined) return this.json(response, 500, { error: 'no script' });
    const runId = script.submission.body['run_id'] as string;
    if (request.method === 'POST' && request.path === '/problems') return this.json(response, script.submission.status, script.submission.body);
    if (request.method === 'POST' && request.path.startsWith('/library/references/file')) {
      // The gateway's streamed import: NDJSON progress per part, then the totals.
      const size = request.body.length;
      const lines = [
        { event: 'part', part: 1, bytesRead: Math.floor(size / 2), status: 'imported', added: 2, updated: 0, skipped: [] },
        { event: 'oversized', line: 9, bytes: 600_000, reason: 'entry starting on line 9 is 600000 bytes, more than the 491520 one import carries: not imported' },
        { event: 'part', part: 2, bytesRead: size, status: 'imported', added: 1, updated: 1, skipped: [{ entry: 0, reason: 'no title' }] },
        { event: 'done', status: 'imported', parts: 2, bytesRead: size, added: 3, updated: 1, skipped: [{ line: 9, reason: 'too large' }, { part: 2, entry: 0, reason: 'no title' }], pendingParts: [] },
      ];
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      return void response.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    }
    if (request.method === 'GET' && request.path === `/runs/${runId}`) return this.json(response, 200, script.final);
    if (request.method === 'GET' && request.path === `/runs/${runId}/solution`) {
      // The solution page's answer markup (apps/solve's solution-html.ts), KaTeX's MathML for `x = 2`.
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void response.end('<section class="final-answer" data-final-answer><h2>Final answer</h2><p class="answer"><span class="katex"><math><semantics><mrow><mi>x</mi><mo>=</mo><mn>2</mn></mrow></semantics></math></span></p></section>');
    }
    if (request.method === 'GET' && request.path === `/assets/${SOLUTION_ID}`) {
      return this.json(response, 200, { asset_version_id: SOLUTION_ID, asset_type: 'solution_html', storage_key: `solutions/p/${SOLUTION_ID}.html`, content_type: 'text/html' });
    }
    if (request.method === 'POST' && request.path === `/runs/${runId}/cancel`) {
      return runId.endsWith('9') ? this.json(response, 409, { error: 'cancel_refused', reason: 'illegal_transition', detail: 'REGISTERING does not accept CancelRun', state: 'REGISTERING' }) : this.json(response, 202, { runId, status: 'cancelled', state: 'CANCELLED', terminal: true });
    }
    if (request.method === 'GET' && (request.path === '/runs' || request.path.startsWith('/runs?'))) {
      if (request.headers.authorization !== 'Bearer good.token' && request.headers.authorization?.startsWith('Bearer ey') !== true) return this.json(response, 401, { error: 'unauthorized' });
      return this.json(response, 200, { items: [script.final], nextCursor: 'next-page' });
    }
    if (request.method === 'POST' && request.path === '/paper-searches') return this.json(response, 202, { runId, state: 'INITIALIZING', status: 'running' });
    if (request.method === 'POST' && request.path.startsWith(`/paper-searches/${runId}/checkpoints/`)) return this.json(response, 202, { state: 'SEARCHING' });
    if (request.method === 'POST' && request.path === '/research') return this.json(response, 202, { id: runId, status: 'processing' });
    if (request.method === 'POST' && request.path === `/research/${runId}/confirm`) return this.json(response, 200, { id: runId, status: 'synthesizing' });
    // The gateway's retry rule, as far as these tests need it: a research failed for max retries is not retried.
    const finalView = (script.final['view'] ?? {}) as Record<string, unknown>;
    const retryable = finalView['status'] === 'failed' && finalView['errorKind'] !== 'max_retries';
    if (request.method === 'GET' && request.path === `/research/${runId}`) return this.json(response, 200, { ...finalView, ui: { actions: retryable ? ['retry'] : ['create_new'] } });
    if (request.method === 'POST' && request.path === `/research/${runId}/retry`) {
      return retryable ? this.json(response, 202, { id: runId, status: 'retrying' }) : this.json(response, 409, { error: 'conflict', status: 'failed', reason: 'max_retries', message: 'max retries (2) reached: create a new research' });
    }
    if (request.method === 'POST' && request.path === '/visual-degrees') return this.json(response, 202, { runId, state: 'INITIALIZING', terminal: false });
    if (request.method === 'GET' && request.path === `/visual-degrees/${runId}`) return this.json(response, 200, script.final);
    if (request.method === 'GET' && request.path === `/visual-degrees/${runId}/events`) {
      // Spec 03's stream: each event its own type, its run sequence number as the id.
      const connection = script.connections[this.connection];
      this.connection += 1;
      if (connection === undefined || 'notFound' in connection) return this.json(response, 404, { error: 'not_found', message: 'no such run' });
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      for (const event of connection.events) response.write(`event: ${String(event['type'])}\nid: ${String(event['seq'])}\ndata: ${JSON.stringify(event['data'])}\n\n`);
      if (connection.then === 'drop') setTimeout(() => response.socket?.destroy(), 50);
      else response.end();
      return;
    }
    if (request.method === 'GET' && request.path === `/runs/${runId}/events`) {
      const connection = script.connections[this.connection];
      this.connection += 1;
      if (connection === undefined || 'notFound' in connection) return this.json(response, 404, { error: 'not_found', message: 'no such run' });
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      response.write('retry: 3000\n\n: heartbeat\n\n');
      for (const event of connection.events) response.write(`event: state\nid: ${String(event['version'])}\ndata: ${JSON.stringify(event)}\n\n`);
      // A drop mid-stream: after the events reached the client, the connection dies without an end.
      if (connection.then === 'drop') setTimeout(() => response.socket?.destroy(), 50);
      else response.end();
      return;
    }
    this.json(response, 404, { error: 'not_found', message: `no route ${request.method} ${request.path}` });
  }
}

describe('openpaw CLI', () => {
  const gateway = new FakeGateway();
  let blobDir: string;
  let workDir: string;

  beforeAll(async () => {
    await gateway.start();
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-cli-blobs-'));
    workDir = await mkdtemp(join(tmpdir(), 'openpaw-cli-work-'));
  });

  afterAll(async () => {
    await gateway.stop();
    await rm(blobDir, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  });

  function cli(env: Record<string, string> = {}): { io: CliIo; out: string[]; err: string[] } {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = {
      env: { OPENPAW_API_URL: gateway.url, OPENPAW_JWT_SECRET: SECRET, OPENPAW_BLOB_DIR: blobDir, ...env },
      cwd: workDir,
      stdout: (line) => out.push(line),
      stderr: (line) => err.push(line),
      fetch: (input, init) => fetch(input, init),
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20))),
      prompt: () => Promise.resolve(undefined),
      close: () => undefined,
    };
    return { io, out, err };
  }

  /** The state names printed as `[  t.ts] STATE` lines, in order. */
  const statesIn = (lines: readonly string[]): string[] =>
    lines.flatMap((line) => {
      const match = /^\[\s*\d+\.\ds\] ([A-Z_]+)/.exec(line);
      return match?.[1] === undefined ? [] : [match[1]];
    });

  it('solves text: follows the states in order across a 404 and a dropped stream, prints where the solution is, exits 0', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f1';
    const events = STATES.map((state, i) => run(runId, i + 1, state, 1, state === 'SUCCEEDED' ? succeededView(runId) : { status: 'running', state }));
    gateway.reset({
      submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1, eta_seconds: 6 } },
      connections: [{ notFound: true }, { events: events.slice(0, 2), then: 'drop' }, { events: events.slice(2), then: 'end' }],
      final: events.at(-1)!,
    });
    const solutionFile = localBlobPath({ OPENPAW_BLOB_DIR: blobDir }, workDir, `solutions/p/${SOLUTION_ID}.html`)!;
    await mkdir(join(solutionFile, '..'), { recursive: true });
    await writeFile(solutionFile, '<html></html>');

    const { io, out, err } = cli();
    const code = await runCli(['solve', '2x + 3 = 7'], io);

    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^\(lost the event stream: .+; reconnecting\)$/);
    expect(statesIn(out)).toEqual(STATES);
    expect(code).toBe(EXIT.succeeded);
    expect(out).toEqual(
      expect.arrayContaining([
        `run ${runId}`,
        'SUCCEEDED (outcome: new)',
        'cost:      $0.0123',
        'duration:  1.84 s',
        'answer:    x = 2',
        `solution:  ${gateway.url}/runs/${runId}/solution`,
        `file:      ${solutionFile}`,
        `video:     rendering in the background; ${gateway.url}/runs/${runId}/video`,
      ]),
    );
    expect(out[0]).toBe(`submitting text "2x + 3 = 7" to ${gateway.url}`);
    expect(out[2]).toMatch(/^\[\s+0\.\ds\] INITIATED {2}\(eta ~6 s\)$/);

    const submit = gateway.requests.find((r) => r.path === '/problems')!;
    expect(submit.headers['content-type']).toBe('application/json');
    expect(JSON.parse(submit.body.toString())).toEqual({ text: '2x + 3 = 7' });
    // A dev token minted with OPENPAW_JWT_SECRET, as the gateway expects it.
    const token = /^Bearer (.+)$/.exec(submit.headers.authorization ?? '')?.[1] ?? '';
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SECRET), { issuer: 'openpaw', audience: 'openpaw-api' });
    expect(payload.sub).toBe('local-user');
    // The reconnection resumed after the last event it saw.
    const eventRequests = gateway.requests.filter((r) => r.path.endsWith('/events'));
    expect(eventRequests.map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '2']);
  });

  it('exits non-zero when the run fails or is cancelled, naming the error', async () => {
    for (const state of ['FAILED', 'CANCELLED']) {
      const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f2';
      const view = { status: state.toLowerCase(), state, outcome: null, output: null, cost_usd: 0, duration_ms: 900, error_code: state === 'FAILED' ? 'media_rejected' : null };
      gateway.reset({
        submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1, eta_seconds: null } },
        connections: [{ events: [run(runId, 1, 'INITIATED'), run(runId, 2, 'INGESTING'), run(runId, 3, state, 1, view)], then: 'end' }],
        final: run(runId, 3, state, 1, view),
      });
      const { io, out } = cli({ OPENPAW_TOKEN: 'given.bearer.token' });
      expect(await runCli(['solve', 'x', '=', '?'], io)).toBe(state === 'FAILED' ? EXIT.failed : EXIT.cancelled);
      expect(statesIn(out)).toEqual(['INITIATED', 'INGESTING', state]);
      if (state === 'FAILED') expect(out).toContain('error:     media_rejected');
      expect(gateway.requests[0]?.headers.authorization).toBe('Bearer given.bearer.token');
      expect(JSON.parse(gateway.requests[0]!.body.toString())).toEqual({ text: 'x = ?' });
    }
  });

  it('uploads an existing file as an image, and sends an http(s) argument as a URL', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f3';
    const photo = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    await writeFile(join(workDir, 'photo.png'), photo);
    const done = run(runId, 2, 'SUCCEEDED', 1, succeededView(runId));
    const script: RunScript = {
      submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1 } },
      connections: [{ events: [run(runId, 1, 'INITIATED'), done], then: 'end' }],
      final: done,
    };
    gateway.reset(script);
    const { io } = cli();
    expect(await runCli(['solve', './photo.png', '--intent', 'explain'], io)).toBe(EXIT.succeeded);
    const upload = gateway.requests[0]!;
    expect(upload.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(new Uint8Array(upload.body), { headers: { 'content-type': upload.headers['content-type']! } }).formData();
    const file = form.get('file') as File;
    expect(file.name).toBe('photo.png');
    expect(file.type).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(photo)).toBe(true);
    expect(form.get('intent')).toBe('explain');

    gateway.reset(script);
    expect(await runCli(['solve', 'https://example.com/problem.png'], cli().io)).toBe(EXIT.succeeded);
    expect(JSON.parse(gateway.requests[0]!.body.toString())).toEqual({ url: 'https://example.com/problem.png' });
  });

  it('prints a cached result at once without following events', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f4';
    gateway.reset({
      submission: { status: 200, body: { run_id: runId, state: 'SUCCEEDED', status: 'succeeded', terminal: true, attempt_no: 1, result: succeededView(runId) } },
      connections: [],
      final: run(runId, 7, 'SUCCEEDED', 1, succeededView(runId)),
    });
    const { io, out } = cli();
    expect(await runCli(['solve', '2x + 3 = 7'], io)).toBe(EXIT.succeeded);
    expect(out[1]).toBe(`run ${runId} (answered from an earlier run)`);
    expect(statesIn(out)).toEqual(['SUCCEEDED']);
    expect(gateway.requests.some((r) => r.path.endsWith('/events'))).toBe(false);
  });

  it("follows a re-attempt past the previous attempt's FAILED", async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f5';
    const failed = run(runId, 3, 'FAILED', 1, { status: 'failed', state: 'FAILED', error_code: 'solve_failed' });
    const done = run(runId, 6, 'SUCCEEDED', 2, succeededView(runId, 2));
    gateway.reset({
      submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 2 } },
      connections: [
        { events: [failed], then: 'end' },
        { events: [run(runId, 4, 'INITIATED', 2), run(runId, 5, 'INGESTING', 2), done], then: 'end' },
      ],
      final: done,
    });
    const { io, out } = cli();
    expect(await runCli(['solve', 'x/2 = 9'], io)).toBe(EXIT.succeeded);
    expect(out[1]).toBe(`run ${runId} (attempt 2)`);
    expect(statesIn(out)).toEqual(['INITIATED', 'INGESTING', 'SUCCEEDED']);
  });

  it('reports a run with status, and cancels one (refusal exits non-zero)', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f6';
    const failed = run(runId, 3, 'FAILED', 1, { status: 'failed', state: 'FAILED', error_code: 'solve_failed', cost_usd: 0.5 });
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [], final: failed });
    const status = cli();
    expect(await runCli(['status', runId], status.io)).toBe(EXIT.failed);
    expect(status.out).toEqual(expect.arrayContaining([`run ${runId}: FAILED, attempt 1, retrieve_or_generate`, 'error:     solve_failed', 'cost:      $0.5000']));

    const cancelled = cli();
    expect(await runCli(['cancel', runId, '--reason', 'typo'], cancelled.io)).toBe(EXIT.succeeded);
    expect(cancelled.out).toEqual([`cancelled: run ${runId} is CANCELLED`]);
    expect(JSON.parse(gateway.requests.at(-1)!.body.toString())).toEqual({ reason: 'typo' });

    const refusedId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9';
    gateway.reset({ submission: { status: 202, body: { run_id: refusedId } }, connections: [], final: {} });
    const refused = cli();
    expect(await runCli(['cancel', refusedId], refused.io)).toBe(EXIT.failed);
    expect(refused.err).toEqual(['cancel refused (illegal_transition): REGISTERING does not accept CancelRun']);
  });

  it('refuses to run without credentials or a problem, and reports API errors', async () => {
    const noCredentials = cli({ OPENPAW_JWT_SECRET: '' });
    expect(await runCli(['solve', '1 + 1'], noCredentials.io)).toBe(EXIT.usage);
    expect(noCredentials.err[0]).toMatch(/^no credentials: run `openpaw login`, or set OPENPAW_TOKEN/);

    const noProblem = cli();
    expect(await runCli(['solve'], noProblem.io)).toBe(EXIT.usage);
    expect(await runCli(['frobnicate'], cli().io)).toBe(EXIT.usage);

    gateway.reset({
      submission: { status: 400, body: { error: 'validation_failed', location: 'body', issues: [{ path: 'text', message: 'text is empty' }] } },
      connections: [],
      final: {},
    });
    const refused = cli();
    expect(await runCli(['solve', 'anything'], refused.io)).toBe(EXIT.apiError);
    expect(refused.err).toEqual(['error: 400 validation_failed: text: text is empty']);

    const unreachable = cli({ OPENPAW_API_URL: 'http://127.0.0.1:1' });
    expect(await runCli(['status', '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f6'], unreachable.io)).toBe(EXIT.apiError);
    expect(unreachable.err[0]).toMatch(/^error: cannot reach the API at http:\/\/127\.0\.0\.1:1/);
  });
  it('prints its version, and usage built from the verbs', async () => {
    const version = cli();
    expect(await runCli(['--version'], version.io)).toBe(EXIT.succeeded);
    expect(version.out).toEqual([`openpaw ${CLI_VERSION}`]);
    const packageJson = JSON.parse(await readFile(join(import.meta.dirname, '../package.json'), 'utf8')) as { version: string; bin: Record<string, string> };
    expect(packageJson.version).toBe(CLI_VERSION);
    expect(Object.keys(packageJson.bin)).toEqual(['openpaw']);
    const help = cli();
    expect(await runCli(['--help'], help.io)).toBe(EXIT.succeeded);
    for (const verb of ['solve', 'papers', 'library', 'status', 'cancel', 'runs', 'login', 'completion']) expect(help.out[0]).toContain(`openpaw ${verb} `);
    const bad = cli();
    expect(await runCli(['status', '--frobnicate'], bad.io)).toBe(EXIT.usage);
    expect(bad.err[0]).toMatch(/Unknown option '--frobnicate'/);
  });

  it('--json: one versioned document on stdout, progress on stderr; --no-wait and a running status exit 5', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f7';
    const running = run(runId, 2, 'INGESTING');
    gateway.reset({
      submission: { status: 202, body: { run_id: runId, state: 'INITIATED', status: 'running', terminal: false, attempt_no: 1 } },
      connections: [],
      final: running,
    });
    const submitted = cli();
    expect(await runCli(['solve', '2x = 4', '--no-wait', '--json'], submitted.io)).toBe(EXIT.stillRunning);
    expect(submitted.out).toHaveLength(1);
    expect(JSON.parse(submitted.out[0]!)).toEqual({ version: JSON_OUTPUT_VERSION, command: 'solve', exitCode: EXIT.stillRunning, result: { runId, state: 'INITIATED', terminal: false } });
    expect(submitted.err).toContain(`run ${runId}`);
    expect(gateway.requests.some((r) => r.path.endsWith('/events'))).toBe(false);

    const status = cli();
    expect(await runCli(['status', runId, '--json'], status.io)).toBe(EXIT.stillRunning);
    expect(JSON.parse(status.out[0]!)).toMatchObject({ version: JSON_OUTPUT_VERSION, command: 'status', exitCode: 5, result: { runId, state: 'INGESTING' } });

    const refused = cli({ OPENPAW_API_URL: 'http://127.0.0.1:1' });
    expect(await runCli(['status', runId, '--json'], refused.io)).toBe(EXIT.apiError);
    expect(JSON.parse(refused.out[0]!)).toMatchObject({ command: 'status', exitCode: 3, error: { message: expect.stringMatching(/cannot reach the API/) } });
  });

  it('lists runs, and logs in: the token (from stdin) is checked, saved in a 0600 profile file and used without any token in the environment', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f8';
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [], final: { ...run(runId, 7, 'SUCCEEDED'), createdAt: '2026-11-27T03:00:00.000Z' } });
    const listed = cli();
    expect(await runCli(['runs', '--state', 'SUCCEEDED', '--limit', '5'], listed.io)).toBe(EXIT.succeeded);
    expect(listed.out[0]).toMatch(new RegExp(`^${runId} +SUCCEEDED +retrieve_or_generate +2026-11-27T03:00:00.000Z$`));
    // The hint pages on the same list (a cursor alone would page over every state).
    expect(listed.out[1]).toBe('more: openpaw runs --state SUCCEEDED --limit 5 --cursor next-page');
    expect(gateway.requests.at(-1)!.path).toBe('/runs?state=SUCCEEDED&limit=5');
    // Summaries unless asked: `--view full` asks the gateway for every run's view.
    expect(await runCli(['runs', '--view', 'full', '--json'], cli().io)).toBe(EXIT.succeeded);
    expect(gateway.requests.at(-1)!.path).toBe('/runs?view=full');
    const quoted = cli();
    expect(await runCli(['runs', '--state', "it's done", '--view', 'full'], quoted.io)).toBe(EXIT.succeeded);
    expect(quoted.out.at(-1)).toBe("more: openpaw runs --state 'it'\\''s done' --view full --cursor next-page");

    const configDir = await mkdtemp(join(tmpdir(), 'openpaw-cli-config-'));
    const noEnvToken = { OPENPAW_JWT_SECRET: '', OPENPAW_CONFIG_DIR: configDir };
    const wrong = cli(noEnvToken);
    wrong.io = { ...wrong.io, prompt: () => Promise.resolve('wrong.token') };
    expect(await runCli(['login'], wrong.io)).toBe(EXIT.apiError);
    await expect(stat(join(configDir, 'profiles.json'))).rejects.toThrow();

    const login = cli(noEnvToken);
    login.io = { ...login.io, prompt: () => Promise.resolve('good.token\n') };
    expect(await runCli(['login', '--profile', 'work'], login.io)).toBe(EXIT.succeeded);
    const file = join(configDir, 'profiles.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ version: 1, current: 'work', profiles: { work: { apiUrl: gateway.url, token: 'good.token' } } });

    // A variable set to nothing is unset: the profile's URL and token are used.
    const later = cli({ ...noEnvToken, OPENPAW_API_URL: '', OPENPAW_TOKEN: '', OPENPAW_PROFILE: '' });
    expect([await runCli(['runs'], later.io), later.err]).toEqual([EXIT.succeeded, []]);
    expect(gateway.requests.at(-1)!.headers.authorization).toBe('Bearer good.token');
    expect(await runCli(['runs', '--profile', 'home'], cli(noEnvToken).io)).toBe(EXIT.usage);
    await rm(configDir, { recursive: true, force: true });
  });

  it('prints completion scripts for bash, zsh and fish from the verb registry', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const { io, out } = cli();
      expect(await runCli(['completion', shell], io)).toBe(EXIT.succeeded);
      expect(out.join('\n')).toContain('papers');
      expect(out.join('\n')).toContain(shell === 'fish' ? "-l no-wait" : '--no-wait');
    }
    const bash = cli();
    await runCli(['completion', 'bash'], bash.io);
    expect(bash.out.join('\n')).toContain('complete -F _openpaw openpaw');
    expect(await runCli(['completion', 'tcsh'], cli().io)).toBe(EXIT.usage);
  });

  it('library: streams the file with its length and media type, and prints each part as the gateway answers it', async () => {
    gateway.reset({ submission: { status: 202, body: { run_id: 'none' } }, connections: [], final: {} });
    const file = join(workDir, 'refs.bib');
    const content = '@article{a,\n  title = {Über graphs}\n}\n';
    await writeFile(file, content);
    const importing = cli();
    expect(await runCli(['library', 'refs.bib'], importing.io)).toBe(EXIT.succeeded);
    const [request] = gateway.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/library/references/file?format=bibtex', headers: { 'content-type': 'application/x-bibtex', 'content-length': String(Buffer.byteLength(content)) } });
    expect(request?.body.toString('utf8')).toBe(content);
    expect(importing.out).toEqual(
      expect.arrayContaining([
        `  part 1 (${Math.round((100 * Math.floor(Buffer.byteLength(content) / 2)) / Buffer.byteLength(content))} %): 2 added, 0 updated`,
        '  entry starting on line 9 is 600000 bytes, more than the 491520 one import carries: not imported',
        '  part 2 (100 %): 1 added, 1 updated',
        `imported ${file}: 3 added, 1 updated, 2 skipped, in 2 parts`,
        '  line 9: too large',
        '  part 2, entry 0: no title',
      ]),
    );
  });

  it('papers: follows the search on its event stream (no polling), asks at a checkpoint, and exits 5 when left waiting', async () => {
    const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0fa';
    const view = (state: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      status: 'running', state, iteration: 1, options: { maxIterations: 3 }, checkpoint: null, error: null, result: null, completion: null, iterations: [], ...extra,
    });
    const checkpoint = {
      checkpointId: '5a0b5c1e-2d3f-4a5b-8c6d-9e0f1a2b3c4d',
      kind: 'strategy_confirmation',
      iteration: 1,
      payload: {
        strategy: { queries: [{ booleanQuery: 'graph AND attention' }], sources: ['openalex'], filters: { yearFrom: 2016, yearTo: null, language: null }, excludedTerms: [] },
        diff: null,
        origin: { origin: 'local_rules', model: 'local/rules', method: 'LOCAL rule-based strategy' },
      },
    };
    const waiting = { ...run(runId, 2, 'AWAITING_STRATEGY', 1, view('AWAITING_STRATEGY', { checkpoint, status: 'waiting' })), workflowType: 'paper_search' };
    const searching = { ...run(runId, 3, 'SEARCHING', 1, view('SEARCHING')), workflowType: 'paper_search' };
    const completed = { ...run(runId, 4, 'COMPLETED', 1, view('COMPLETED', { status: 'completed', completion: 'approved', iterations: [{}] })), workflowType: 'paper_search', terminal: true };
    gateway.reset({
      submission: { status: 202, body: { run_id: runId } },
      connections: [{ notFound: true }, { events: [run(runId, 1, 'PLANNING', 1, view('PLANNING')), waiting], then: 'drop' }, { events: [searching, completed], then: 'end' }],
      final: completed,
    });
    const answers = ['a'];
    const approving = cli();
    approving.io = { ...approving.io, prompt: () => Promise.resolve(answers.shift()) };
    expect(await runCli(['papers', 'graph attention networks'], approving.io)).toBe(EXIT.succeeded);
    expect(approving.out).toEqual(expect.arrayContaining([`paper search ${runId}`, '  PLANNING (iteration 1/3)', 'checkpoint 1 of iteration 1: the search strategy, proposed by local rules (no model was asked: no planner model is configured)', '  query 1: graph AND attention', '  SEARCHING (iteration 1/3)', 'completed (approved) after 1 iteration: 0 papers']));
    const paths = gateway.requests.map((r) => `${r.method} ${r.path}`);
    expect(paths.filter((p) => p.startsWith('GET /paper-searches'))).toEqual([]);
    expect(paths).toContain(`POST /paper-searches/${runId}/checkpoints/${checkpoint.checkpointId}/decision`);
    expect(gateway.requests.filter((r) => r.path.endsWith('/events')).map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '2']);

    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [waiting], then: 'end' }], final: waiting });
    const leaving = cli();
    expect(await runCli(['papers', '--resume', runId], leaving.io)).toBe(EXIT.stillRunning);
    expect(leaving.out).toContain(`the search waits at strategy_confirmation; decide later with: openpaw papers --resume ${runId}`);
  });
  it('degrees: streams the evidence live across a dropped stream (resuming after the last event), prints the chain, exits 0; no path exits 1', async () => {
    const runId = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
    const card = (from: string, to: string, edgeConf: number) => ({ from, to, edgeConf, imageUrl: `local-world:${from}-${to}.png`, sourcePageUrl: null, confidenceFrom: 97, confidenceTo: edgeConf, images: 1 });
    const events = [
      { seq: 1, type: 'status', data: { message: 'Checking a direct connection…' } },
      { seq: 2, type: 'evidence', data: card('Ada Stone', 'Xavier Reed', 91) },
      { seq: 3, type: 'path_update', data: { path: ['Ada Stone', 'Xavier Reed'], hops: 1, reversePath: ['Bea North'] } },
      { seq: 4, type: 'evidence', data: card('Xavier Reed', 'Bea North', 88) },
      { seq: 5, type: 'final', data: { path: ['Ada Stone', 'Xavier Reed', 'Bea North'], confidenceMap: { bottleneck: 88, cumulative: 0.8008 } } },
    ];
    gateway.reset({
      submission: { status: 202, body: { run_id: runId } },
      connections: [{ notFound: true }, { events: events.slice(0, 3), then: 'drop' }, { events: events.slice(3), then: 'end' }],
      final: { runId, state: 'SUCCEEDED', terminal: true },
    });
    const found = cli();
    expect(await runCli(['degrees', 'Ada Stone', 'Bea North', '--max-hops', '4'], found.io)).toBe(EXIT.succeeded);
    expect(found.out).toEqual(
      expect.arrayContaining([
        `run ${runId}: Ada Stone → Bea North`,
        '… Checking a direct connection…',
        // B's chain is B alone: nothing to show after the gap yet.
        '→ Ada Stone → Xavier Reed',
        'Found 2 degree(s): Ada Stone → Xavier Reed → Bea North\n  weakest edge 88.0%, whole chain 80.1%',
      ]),
    );
    expect(found.out.filter((line) => line.startsWith('✓ '))).toHaveLength(2);
    const posted = gateway.requests.find((r) => r.method === 'POST');
    expect(JSON.parse(posted?.body.toString() ?? '{}')).toEqual({ from: 'Ada Stone', to: 'Bea North', options: { maxHops: 4 } });
    expect(posted?.headers['idempotency-key']).toEqual(expect.any(String));
    expect(gateway.requests.filter((r) => r.path.endsWith('/events')).map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '3']);

    gateway.reset({
      submission: { status: 202, body: { run_id: runId } },
      connections: [{ events: [{ seq: 1, type: 'no_path', data: { message: 'No verified visual connection found within 2 degrees at ≥80% confidence.', reason: 'hop_limit_reached' } }], then: 'end' }],
      final: { runId, state: 'FAILED', terminal: true },
    });
    const none = cli();
    expect(await runCli(['degrees', 'Ada Stone', 'Bea North', '--json'], none.io)).toBe(EXIT.failed);
    expect(JSON.parse(none.out.join('\n'))).toMatchObject({ result: { runId, outcome: 'no_path', no_path: { reason: 'hop_limit_reached' } } });

    const usage = cli();
    expect(await runCli(['degrees', 'Ada Stone'], usage.io)).toBe(EXIT.usage);
    expect(await runCli(['degrees', 'Ada Stone', 'Bea North', '--max-hops', '9'], usage.io)).toBe(EXIT.usage);
    expect(usage.err.join('\n')).toContain('--max-hops must be a whole number from 1 to 6');
  });

  it('keys: set reads the key from stdin (never argv), test prints the research service’s report (a refusal exits 1), no report in time exits 5, remove', async () => {
    const stdinKey = cli();
    const set = { ...stdinKey.io, prompt: () => Promise.resolve('  sk-openai-from-stdin-0123456789 \n') };
    expect(await runCli(['keys', 'set', 'openai'], set)).toBe(EXIT.succeeded);
    expect(gateway.keys.get('openai')?.apiKey).toBe('sk-openai-from-stdin-0123456789');
    expect(stdinKey.out.join('\n')).not.toContain('sk-openai-from-stdin');
    expect(await runCli(['keys', 'set', 'mistral'], set)).toBe(EXIT.usage);

    const tested = cli();
    gateway.requests.length = 0;
    expect(await runCli(['keys', 'test', 'openai'], tested.io)).toBe(EXIT.failed);
    expect(tested.out.at(-1)).toBe('openai: quota: refused for quota or rate (429): check the account’s credit and limits (openai/model, 0.4 s) — openai: HTTP 429: You exceeded your current quota');
    // One request that waits for the report at the gateway: no polling of the key list.
    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /research/keys/openai/test?wait=30']);
    const noKey = cli();
    expect(await runCli(['keys', 'test', 'gemini'], noKey.io)).toBe(EXIT.failed);
    expect(noKey.err.join('\n')).toContain('no gemini key stored: openpaw keys set gemini');

    // No report within the wait (the gateway answers 202): exit 5.
    gateway.keyTestsReported = false;
    try {
      const waiting = cli();
      expect(await runCli(['keys', 'test', 'openai', '--json'], waiting.io)).toBe(EXIT.stillRunning);
      expect(JSON.parse(waiting.out.join('\n'))).toMatchObject({ result: { provider: 'openai', lastTest: { outcome: null } } });
    } finally {
      gateway.keyTestsReported = true;
    }

    const pending = cli();
    expect(await runCli(['keys'], pending.io)).toBe(EXIT.succeeded);
    expect(pending.out).toEqual(['openai: stored 2026-11-27T18:00:00.000Z; test pending since 2026-11-27T19:00:00.000Z']);
    expect(await runCli(['keys', 'test', 'openai'], cli().io)).toBe(EXIT.failed);
    const listed = cli();
    expect(await runCli(['keys'], listed.io)).toBe(EXIT.succeeded);
    // Reported since: the list shows it.
    expect(listed.out).toEqual([expect.stringMatching(/^openai: stored 2026-11-27T18:00:00.000Z; quota: refused for quota or rate \(429\)/)]);
    expect(await runCli(['keys', 'remove', 'openai'], cli().io)).toBe(EXIT.succeeded);
    expect(gateway.keys.has('openai')).toBe(false);
  });

  it('research: streams each leg as it changes, answers the gate on stdin, prints the synthesis and the share link; a rejected key and a gate left waiting exit 1 and 5', async () => {
    const runId = '2b3c4d5e-6f70-4a8b-9c0d-1e2f3a4b5c6d';
    const leg = (provider: string, status: string, extra: Record<string, unknown> = {}) => ({
      provider, status, model: null, result: null, truncated: false, local: false, error: null, errorReason: null, round: 1, startedAt: null, completedAt: null, durationMs: null, costUsd: 0, ...extra,
    });
    const done = (provider: string) => leg(provider, 'completed', { model: `${provider}/m`, result: `Report of ${provider}.`, durationMs: 12_300, costUsd: 0.01 });
    const rejected = leg('anthropic', 'failed', { error: 'HTTP 401: invalid x-api-key', errorReason: 'auth' });
    const view = (status: string, legs: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      id: runId, status, title: 'Heat pumps in cold climates', titleSource: 'fallback', prompt: 'How efficient are heat pumps in cold climates?', selectedLlms: ['openai', 'anthropic'], synthesisLlm: 'local',
      externalReports: [], llmResults: legs, synthesizedResult: null, synthesisModel: null, synthesisAttributions: [], synthesisSkipped: false, synthesisError: null, partialFailure: null, retryCount: 0,
      shareInfo: null, error: null, errorKind: null, errorReason: null, costUsd: 0, startedAt: null, completedAt: null, ...extra,
    });
    const state = (version: number, v: Record<string, unknown>) => ({ ...run(runId, version, String(v['status']), 1, v), workflowType: 'research', terminal: ['completed', 'failed'].includes(String(v['status'])) });
    const gate = state(3, view('awaiting_confirmation', [done('openai'), rejected], { partialFailure: { failedProviders: ['anthropic'], detectedAt: 'now', retryCount: 0 } }));
    const completed = state(5, view('completed', [done('openai'), rejected], {
      synthesizedResult: '## Where the sources agree\n- Heat pumps work in the cold. [openai][External 1]', synthesisModel: 'local/extractive', synthesisTruncated: true,
      shareInfo: { url: '/v1/shared/tok', expiresAt: '2026-01-08T00:00:00.000Z', blobKey: 'k', contentSha256: 'a'.repeat(64) },
    }));
    gateway.reset({
      submission: { status: 202, body: { run_id: runId } },
      connections: [
        { notFound: true },
        { events: [state(1, view('processing', [leg('openai', 'pending'), leg('anthropic', 'pending')])), state(2, view('processing', [leg('openai', 'processing'), leg('anthropic', 'pending')])), gate], then: 'drop' },
        { events: [state(4, view('synthesizing', [done('openai'), rejected])), completed], then: 'end' },
      ],
      final: completed,
    });
    const answers = ['x', 'p'];
    const proceeding = cli();
    proceeding.io = { ...proceeding.io, prompt: () => Promise.resolve(answers.shift()) };
    expect(await runCli(['research', 'How efficient are heat pumps in cold climates?', '--llm', 'openai,anthropic'], proceeding.io)).toBe(EXIT.succeeded);
    expect(proceeding.out).toEqual(
      expect.arrayContaining([
        `research ${runId}`,
        'processing: Heat pumps in cold climates',
        '  openai: pending',
        '  openai: processing',
        '  openai: completed (openai/m, 12.3 s, $0.0100)',
        '  anthropic: failed — auth: HTTP 401: invalid x-api-key (update your key, then retry)',
        'anthropic failed; openai completed.',
        '## Where the sources agree\n- Heat pumps work in the cold. [openai][External 1]',
        '(The synthesis was cut short: it is not whole.)',
        `Share link (until 2026-01-08T00:00:00.000Z): ${gateway.url}/v1/shared/tok`,
      ]),
    );
    // Each leg's line once per change, never repeated for an unchanged leg.
    expect(proceeding.out.filter((line) => line === '  openai: completed (openai/m, 12.3 s, $0.0100)')).toHaveLength(1);
    expect(proceeding.err).toContain('  "x" is not an answer');
    const posted = gateway.requests.filter((r) => r.method === 'POST').map((r) => [r.path, JSON.parse(r.body.toString()) as unknown]);
    expect(posted).toEqual([
      ['/research', { prompt: 'How efficient are heat pumps in cold climates?', selectedLlms: ['openai', 'anthropic'] }],
      [`/research/${runId}/confirm`, { action: 'proceed' }],
    ]);
    expect(gateway.requests.filter((r) => r.path.endsWith('/events')).map((r) => r.headers['last-event-id'])).toEqual([undefined, undefined, '3']);

    // Every key rejected: the run fails, saying what to do.
    const failed = state(2, view('failed', [leg('openai', 'failed', { error: 'HTTP 401', errorReason: 'auth' })], { errorKind: 'all_failed', errorReason: 'auth', error: 'All LLM calls failed: openai rejected the API key — update your key, then retry' }));
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [failed], then: 'end' }], final: failed });
    const refused = cli();
    expect(await runCli(['research', '--resume', runId], refused.io)).toBe(EXIT.failed);
    expect(refused.err).toContain('the research failed: All LLM calls failed: openai rejected the API key — update your key, then retry');
    expect(refused.err).toContain(`update your key (openpaw keys set openai < openai-key.txt), then retry: openpaw research --retry ${runId}`);

    // --retry: the gateway's retry, then the run followed past the failed state it reopens (version 2).
    const retried = state(4, view('completed', [done('openai')], { selectedLlms: ['openai'], synthesisSkipped: true, retryCount: 1 }));
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [failed, state(3, view('retrying', [leg('openai', 'pending')])), retried], then: 'end' }], final: failed });
    const retrying = cli();
    expect(await runCli(['research', '--retry', runId], retrying.io)).toBe(EXIT.succeeded);
    expect(retrying.out).toEqual(expect.arrayContaining(['retrying research ' + runId, 'retrying: Heat pumps in cold climates', 'Report of openai.']));
    expect(retrying.err).toEqual([]);
    expect(gateway.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /runs/${runId}`, `POST /research/${runId}/retry`, `GET /runs/${runId}/events`]);
    // No retry left: the gateway's refusal, exit 1, and no retry offered after the failure.
    const spent = state(2, view('failed', [leg('openai', 'failed', { errorReason: 'server_error' })], { errorKind: 'max_retries', error: 'max retries', retryCount: 2 }));
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [spent], then: 'end' }], final: spent });
    const exhausted = cli();
    expect(await runCli(['research', '--retry', runId], exhausted.io)).toBe(EXIT.failed);
    expect(await runCli(['research', '--resume', runId], exhausted.io)).toBe(EXIT.failed);
    expect(exhausted.err).toEqual(['retry refused (max_retries): max retries (2) reached: create a new research', 'the research failed: max retries']);

    // One report, no synthesis: the report itself, and no share page.
    const single = state(2, view('completed', [done('openai')], { selectedLlms: ['openai'], synthesisSkipped: true }));
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [single], then: 'end' }], final: single });
    const alone = cli();
    expect(await runCli(['research', '--resume', runId, '--json'], alone.io)).toBe(EXIT.succeeded);
    expect(alone.err).toEqual(expect.arrayContaining(['Report by openai:', 'Report of openai.', 'No share page: a research without a synthesis publishes none (the report is above).']));
    expect(JSON.parse(alone.out.join('\n'))).toMatchObject({ command: 'research', exitCode: 0, result: { id: runId, status: 'completed' } });

    // The gate left for later (end of input): exit 5, with the way back.
    gateway.reset({ submission: { status: 202, body: { run_id: runId } }, connections: [{ events: [gate], then: 'end' }], final: gate });
    const leaving = cli();
    expect(await runCli(['research', '--resume', runId], leaving.io)).toBe(EXIT.stillRunning);
    expect(leaving.out).toContain(`the research waits for your answer; decide later with: openpaw research --resume ${runId}`);

    const usage = cli();
    expect(await runCli(['research'], usage.io)).toBe(EXIT.usage);
    expect(await runCli(['research', 'q', '--llm', 'openai,mistral'], usage.io)).toBe(EXIT.usage);
    expect(await runCli(['research', 'q', '--retry', runId], usage.io)).toBe(EXIT.usage);
    expect(usage.err.join('\n')).toContain('--llm takes openai, anthropic, gemini, local (comma-separated), not mistral');
  });
});
