import type { RunningPlatform } from '@openpaw/testing';
import { signAccessToken } from '../../auth/tokens.js';
import { sseEvents } from '../../e2e/sse-reader.js';

/** What e2e specs of the artifact API need: authenticated calls, polling, and the SSE progress of a run. */
export class ArtifactsApiClient {
  private constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  static async forUser(platform: Pick<RunningPlatform, 'gatewayUrl' | 'jwtSecret'>, userId: string): Promise<ArtifactsApiClient> {
    const token = await signAccessToken({ secret: platform.jwtSecret, issuer: 'openpaw', audience: 'openpaw-api' }, userId);
    return new ArtifactsApiClient(platform.gatewayUrl, token);
  }

  async call(method: string, path: string, body?: unknown, extraHeaders: Readonly<Record<string, string>> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const { status, body: answered } = await this.exchange(method, path, body, extraHeaders);
    return { status, body: answered };
  }

  /** `call`, with the answer's `Location` header (null when it has none). */
  async exchange(method: string, path: string, body?: unknown, extraHeaders: Readonly<Record<string, string>> = {}): Promise<{ status: number; body: Record<string, unknown>; location: string | null }> {
    const headers: Record<string, string> = { ...extraHeaders, authorization: `Bearer ${this.token}` };
    let payload: string | FormData | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), location: response.headers.get('location') };
  }

  /** `POST /ai/chat`, with `idempotencyKey` as its `Idempotency-Key` header when given. */
  chat(body: Record<string, unknown>, idempotencyKey?: string): Promise<{ status: number; body: Record<string, unknown> }> {
    return this.call('POST', '/ai/chat', body, idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey });
  }

  /** Adds a text source and returns its id and chunk ids (waits for indexing). */
  async addText(notebookId: string, text: string): Promise<{ sourceId: string; chunkIds: string[] }> {
    const { status, body } = await this.call('POST', `/notebooks/${notebookId}/sources`, { text });
    if (status !== 201) throw new Error(`adding a source answered ${status}: ${JSON.stringify(body)}`);
    return { sourceId: body['source_id'] as string, chunkIds: body['chunk_ids'] as string[] };
  }

  async job(jobId: string): Promise<Record<string, unknown> | undefined> {
    const { status, body } = await this.call('GET', `/ai/artifact/${jobId}`);
    return status === 200 ? body : undefined;
  }

  async view(runId: string): Promise<Record<string, unknown>> {
    const { body } = await this.call('GET', `/runs/${runId}`);
    return body['view'] as Record<string, unknown>;
  }

  /** Polls the job until `until` holds. */
  async waitForJob(jobId: string, until: (job: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    let last: Record<string, unknown> | undefined;
    for (;;) {
      last = await this.job(jobId);
      if (last !== undefined && until(last)) return last;
      if (Date.now() > deadline) throw new Error(`job ${jobId} did not get there in time; last: ${JSON.stringify(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  }

  /** The `view.progress` of every SSE state event of a run, until the stream ends (after a terminal state). */
  async progressEvents(runId: string, timeoutMs = 30_000): Promise<{ status: string; progress: number }[]> {
    const response = await fetch(`${this.baseUrl}/runs/${runId}/events`, { headers: { authorization: `Bearer ${this.token}` }, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok || response.body === null) throw new Error(`SSE answered ${response.status}`);
    const seen: { status: string; progress: number }[] = [];
    for await (const event of sseEvents(response.body)) {
      if (event.event !== 'state' || event.data === '') continue;
      const view = (JSON.parse(event.data) as { view: { status: string; progress: number } }).view;
      seen.push({ status: view.status, progress: view.progress });
    }
    return seen;
  }
}
