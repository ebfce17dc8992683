import type { RunningPlatform } from '@openpaw/testing';
import { signAccessToken } from '../../auth/tokens.js';
import { sseEvents } from '../../e2e/sse-reader.js';

export type Json = Record<string, unknown>;

/** What e2e specs of the research API need: authenticated calls, and a run's SSE views until a condition. */
export class ResearchApiClient {
  private constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  static async forUser(platform: Pick<RunningPlatform, 'gatewayUrl' | 'jwtSecret'>, userId: string): Promise<ResearchApiClient> {
    return new ResearchApiClient(platform.gatewayUrl, await signAccessToken({ secret: platform.jwtSecret, issuer: 'openpaw', audience: 'openpaw-api' }, userId));
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Json) };
  }

  async research(id: string): Promise<Json> {
    const { status, body } = await this.call('GET', `/research/${id}`);
    if (status !== 200) throw new Error(`GET /research/${id} answered ${status}: ${JSON.stringify(body)}`);
    return body;
  }

  /** Polls GET /research/:id until `until` holds (a 404 while the projection catches up is waited out). */
  async waitFor(id: string, until: (research: Json) => boolean, timeoutMs = 60_000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    let last: Json | undefined;
    for (;;) {
      const { status, body } = await this.call('GET', `/research/${id}`);
      if (status !== 200 && status !== 404) throw new Error(`GET /research/${id} answered ${status}: ${JSON.stringify(body)}`);
      last = status === 200 ? body : undefined;
      if (last !== undefined && until(last)) return last;
      if (Date.now() > deadline) throw new Error(`research ${id} did not get there in time; last: ${JSON.stringify(last)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /**
   * Opens the run's SSE stream (`GET /runs/:id/events`) and collects the research view of every
   * `state` event until `until` holds for one (or the stream ends after a terminal state).
   */
  async events(id: string, until: (view: Json) => boolean, timeoutMs = 60_000): Promise<Json[]> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`SSE of ${id}: condition not met in ${timeoutMs} ms`)), timeoutMs);
    const views: Json[] = [];
    try {
      const response = await fetch(`${this.baseUrl}/runs/${id}/events`, { headers: { authorization: `Bearer ${this.token}` }, signal: controller.signal });
      if (!response.ok || response.body === null) throw new Error(`SSE answered ${response.status}`);
      for await (const event of sseEvents(response.body)) {
        if (event.event !== 'state' || event.data === '') continue;
        const view = (JSON.parse(event.data) as { view: Json }).view;
        views.push(view);
        if (until(view)) {
          controller.abort();
          return views;
        }
      }
      return views;
    } catch (error) {
      if (controller.signal.aborted && views.length > 0 && until(views.at(-1) as Json)) return views;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
