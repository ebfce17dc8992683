import { signAccessToken } from '../auth/tokens.js';

export interface SubmissionBody {
  readonly run_id: string;
  readonly state: string;
  readonly status: string;
  readonly terminal: boolean;
  readonly attempt_no: number;
  readonly result?: {
    readonly status: string;
    readonly outcome?: 'hit' | 'new';
    readonly output: { readonly asset_version_id?: string; readonly video_pending?: boolean; readonly is_approximate?: boolean };
    readonly error_code?: string;
    readonly attempt_no: number;
    readonly cost_usd: number;
    readonly duration_ms: number;
    readonly cached_from?: string;
    readonly waiting_for_run_id?: string;
  };
  readonly eta_seconds?: number | null;
}

/** A user of the public API in end-to-end tests: submissions, runs and assets through the gateway. */
export class GatewayClient {
  private constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** `roles` go in the token's `roles` claim (`admin` for the operations API). */
  static async forUser(baseUrl: string, jwtSecret: string, userId: string, options: { readonly roles?: readonly string[] } = {}): Promise<GatewayClient> {
    const claims = options.roles === undefined ? {} : { roles: [...options.roles] };
    return new GatewayClient(baseUrl, await signAccessToken({ secret: jwtSecret, issuer: 'openpaw', audience: 'openpaw-api' }, userId, claims));
  }

  /** The `Authorization` header value, for requests `fetch` cannot make (a declared length with no body). */
  get authorization(): string {
    return `Bearer ${this.token}`;
  }

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${this.token}`, ...init.headers } });
  }

  async submitText(text: string, waitSeconds = 0, intent?: string): Promise<{ status: number; body: SubmissionBody }> {
    const response = await this.request(`/problems${waitSeconds > 0 ? `?wait=${waitSeconds}` : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text, ...(intent === undefined ? {} : { intent }) }),
    });
    return { status: response.status, body: (await response.json()) as SubmissionBody };
  }

  async submitUrl(url: string, waitSeconds = 0): Promise<{ status: number; body: SubmissionBody }> {
    const response = await this.request(`/problems${waitSeconds > 0 ? `?wait=${waitSeconds}` : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    });
    return { status: response.status, body: (await response.json()) as SubmissionBody };
  }

  async submitImage(bytes: Buffer, filename: string, waitSeconds = 0, fields: Readonly<Record<string, string>> = {}): Promise<{ status: number; body: SubmissionBody }> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), filename);
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const response = await this.request(`/problems${waitSeconds > 0 ? `?wait=${waitSeconds}` : ''}`, { method: 'POST', body: form });
    return { status: response.status, body: (await response.json()) as SubmissionBody };
  }

  async run(runId: string): Promise<{ state: string; terminal: boolean; attemptNo: number; view: Record<string, unknown> }> {
    const response = await this.request(`/runs/${runId}`);
    if (response.status !== 200) throw new Error(`GET /runs/${runId} answered ${response.status}`);
    return (await response.json()) as { state: string; terminal: boolean; attemptNo: number; view: Record<string, unknown> };
  }

  /** Polls the run until it is terminal (the gateway's projection). */
  async untilTerminal(runId: string, timeoutMs = 60_000): Promise<{ state: string; view: Record<string, unknown>; attemptNo: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.run(runId);
      if (run.terminal) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.state} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async untilState(runId: string, states: readonly string[], timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.run(runId).catch(() => undefined);
      if (run !== undefined && states.includes(run.state)) return run.state;
      if (Date.now() > deadline) throw new Error(`run ${runId} never reached ${states.join('|')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
