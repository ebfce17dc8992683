import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SOLUTION_ID = '7a0b5c1e-2d3f-4a5b-8c6d-9e0f1a2b3c4d';
export const STATES = ['INITIATED', 'INGESTING', 'RETRIEVING', 'GENERATING_SOLUTION', 'REGISTERING', 'INDEXING', 'SUCCEEDED'];

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export interface RunScript {
  /** Answer of POST /problems. */
  readonly submission: { status: number; body: Record<string, unknown> };
  /** Each connection to /events: 404 (not known yet), or events to send, then `end` or `drop`. */
  readonly connections: ({ notFound: true } | { events: Record<string, unknown>[]; then: 'end' | 'drop' })[];
  readonly final: Record<string, unknown>;
}

export function runRecord(runId: string, version: number, state: string, attemptNo = 1, view: Record<string, unknown> = { status: 'running', state }): Record<string, unknown> {
  const terminal = ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(state);
  return { runId, workflowType: 'retrieve_or_generate', state, terminal, attemptNo, version, parentRunId: null, view, createdAt: '', updatedAt: '' };
}

export const succeededView = (runId: string, attemptNo = 1): Record<string, unknown> => ({
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
export class FakeGateway {
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
