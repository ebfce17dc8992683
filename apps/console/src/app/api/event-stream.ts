import { EventSourceParserStream } from 'eventsource-parser/stream';

/** One server-sent event (the fields the gateway's `/runs/:id/events` uses); `event` is `message` when the stream names none. */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

/**
 * Reads a `text/event-stream` body (from the generated client, `parseAs: 'stream'`; `EventSource`
 * cannot send a bearer token) with `eventsource-parser`, and hands over each event until it ends.
 */
export async function readEventStream(body: NonNullable<Response['body']>, onEvent: (event: ServerSentEvent) => void): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onEvent({ event: value.event ?? 'message', data: value.data, ...(value.id === undefined ? {} : { id: value.id }) });
    }
  } finally {
    reader.releaseLock();
  }
}
