import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import type { CliIo } from './io.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

/** A run as `GET /runs` lists it (its summary: no workflow view). */
export interface RunSummary {
  readonly runId: string;
  readonly workflowType: string;
  readonly state: string;
  readonly terminal: boolean;
  readonly attemptNo: number;
  readonly version: number;
  readonly createdAt?: string;
}

/** A run as `GET /runs/:id` and the SSE stream show it. */
export interface RunResource extends RunSummary {
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

export type SseEvent = EventSourceMessage;

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

function parseBody(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text; // Not JSON: kept as text for the error message.
  }
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
    const body = parseBody(await response.text());
    if (!response.ok && !accept.includes(response.status)) throw new ApiError(response.status, body);
    return { status: response.status, body: body as T };
  }

  /** A JSON `POST` of `body`. */
  async post<T>(path: string, body: unknown, accept: readonly number[] = []): Promise<{ status: number; body: T }> {
    return this.json<T>(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, accept);
  }

  /**
   * `text/event-stream` events of `path` (parsed by `eventsource-parser`) until the server ends the
   * stream or `signal` aborts; resumes after `lastEventId` when given.
   */
  async *events(path: string, lastEventId: string | undefined, signal?: AbortSignal): AsyncGenerator<SseEvent> {
    const response = await this.request(path, {
      headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
      ...(signal === undefined ? {} : { signal }),
    });
    if (!response.ok || response.body === null) throw new ApiError(response.status, parseBody(await response.text()));
    yield* response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  }
}
