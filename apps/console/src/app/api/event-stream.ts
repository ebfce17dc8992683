import { type ServerSentEvent, ServerSentEventParser } from '../runs/sse.js';

/** Reads a `text/event-stream` body (from the generated client, `parseAs: 'stream'`) and hands over each event until it ends. */
export async function readEventStream(body: NonNullable<Response['body']>, onEvent: (event: ServerSentEvent) => void): Promise<void> {
  const parser = new ServerSentEventParser();
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const event of parser.feed(value)) onEvent(event);
    }
  } finally {
    reader.releaseLock();
  }
}
