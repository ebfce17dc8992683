import { createParser } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { GatewayClient } from './e2e-client.js';

export interface SseEvent {
  readonly event: string;
  readonly id: string | undefined;
  /** The raw `data:` field. */
  readonly data: string;
}

/** Parses a whole text/event-stream body into its events (`eventsource-parser`; comments and `retry:` left out). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event ?? 'message', id: event.id, data: event.data }) });
  parser.feed(text);
  return events;
}

/** The events of a streaming text/event-stream body as they arrive, until it ends. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  for await (const event of body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())) {
    yield { event: event.event ?? 'message', id: event.id, data: event.data };
  }
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
