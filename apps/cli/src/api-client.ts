import type { CliIo } from './io.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/** A run as `GET /runs/:id` and the SSE stream show it. */
export interface RunResource {
  readonly runId: string;
  readonly workflowType: string;
  readonly state: string;
  readonly terminal: boolean;
  readonly attemptNo: number;
  readonly version: number;
  readonly view: Record<string, unknown>;
}

/** What `POST /problems` answers. */
export interface ProblemSubmission {
  readonly run_id: string;
  readonly state: string;
  readonly status: string;
  readonly terminal: boolean;
  readonly attempt_no: number;
  readonly eta_seconds?: number | null;
  readonly result?: Record<string, unknown>;
}

export interface AssetMetadata {
  readonly asset_version_id: string;
  readonly asset_type: string;
  readonly storage_key: string;
  readonly content_type: string;
  readonly video_asset_version_id?: string | null;
}

export interface SseEvent {
  readonly event?: string;
  readonly id?: string;
  readonly data: string;
}

/** A non-2xx answer, with the gateway's JSON error body when there is one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describeError(status, body));
    this.name = 'ApiError';
  }
}

function describeError(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null) {
    const b = body as { error?: unknown; message?: unknown; issues?: { path: string; message: string }[]; detail?: unknown };
    const code = typeof b.error === 'string' ? b.error : 'error';
    if (Array.isArray(b.issues) && b.issues.length > 0) {
      return `${status} ${code}: ${b.issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join('; ')}`;
    }
    const text = [b.message, b.detail].filter((v) => typeof v === 'string').join(' — ');
    return `${status} ${code}${text === '' ? '' : `: ${text}`}`;
  }
  return `${status}${typeof body === 'string' && body !== '' ? `: ${body}` : ''}`;
}

/** The gateway's HTTP API with a bearer token. */
export class ApiClient {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
    private readonly io: CliIo,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${this.token}`);
    return this.io.fetch(this.url(path), { ...init, headers });
  }

  /** A JSON call; `accept` lists statuses that are answers rather than errors. */
  async json<T>(path: string, init: RequestInit = {}, accept: readonly number[] = []): Promise<{ status: number; body: T }> {
    const response = await this.request(path, init);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: keep the text for the error message.
    }
    if (!response.ok && !accept.includes(response.status)) throw new ApiError(response.status, body);
    return { status: response.status, body: body as T };
  }

  /** `text/event-stream` events of `path` until the server ends the stream (or `signal` aborts). */
  async *events(path: string, lastEventId: string | undefined, signal?: AbortSignal): AsyncGenerator<SseEvent> {
    const response = await this.request(path, {
      headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
      ...(signal === undefined ? {} : { signal }),
    });
    if (!response.ok || response.body === null) {
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep text
      }
      throw new ApiError(response.status, body);
    }
    yield* parseSse(response.body);
  }
}

/** A `text/event-stream` body as events (comments skipped; `data` lines joined by newlines). */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
      let boundary = buffer.indexOf('\n\n');
      while (boundary >= 0) {
        const event = parseBlock(buffer.slice(0, boundary));
        buffer = buffer.slice(boundary + 2);
        if (event !== undefined) yield event;
        boundary = buffer.indexOf('\n\n');
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let event: string | undefined;
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { ...(event === undefined ? {} : { event }), ...(id === undefined ? {} : { id }), data: data.join('\n') };
}
