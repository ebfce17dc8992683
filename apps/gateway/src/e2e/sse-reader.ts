import type { GatewayClient } from './e2e-client.js';

export interface SseEvent {
  readonly event: string;
  readonly id: string | undefined;
  /** The raw `data:` field. */
  readonly data: string;
}

/** Parses a text/event-stream body into its events (comments and `retry:` lines left out). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
    }
    const data = fields.get('data');
    if (data !== undefined) events.push({ event: fields.get('event') ?? 'message', id: fields.get('id'), data });
  }
  return events;
}

/** Reads a whole SSE stream (one that ends by itself) as `client`, resuming after `lastEventId` when given. */
export async function readSse(url: string, client: GatewayClient, options: { readonly timeoutMs: number; readonly lastEventId?: string }): Promise<SseEvent[]> {
  const response = await client.request(url.slice(client.baseUrl.length), {
    headers: { accept: 'text/event-stream', ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }) },
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return parseSse(await response.text());
}
