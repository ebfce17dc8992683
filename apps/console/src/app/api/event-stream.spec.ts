import { readEventStream, type ServerSentEvent } from './event-stream.js';

/** A response body delivering `chunks` one by one, as a network would split them. */
function bodyOf(chunks: readonly string[]): ReadableStream<Uint8Array<ArrayBuffer>> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('reading the run event stream', () => {
  it('given chunks split anywhere, then yields each complete event once, skipping heartbeat comments and retry', async () => {
    const stream = 'retry: 3000\n\n: heartbeat\n\nevent: state\nid: 3\ndata: {"state":"INGESTING"}\n\nevent: state\r\nid: 4\r\ndata: {"state":\r\ndata: "SUCCEEDED"}\r\n\r\n';
    const events: ServerSentEvent[] = [];
    await readEventStream(bodyOf([stream.slice(0, 20), stream.slice(20, 57), stream.slice(57, 90), stream.slice(90)]), (event) => events.push(event));
    expect(events).toEqual([
      { event: 'state', id: '3', data: '{"state":"INGESTING"}' },
      { event: 'state', id: '4', data: '{"state":\n"SUCCEEDED"}' },
    ]);
  });

  it('given an event without its blank line when the stream ends, then drops it; an unnamed event is a message', async () => {
    const events: ServerSentEvent[] = [];
    await readEventStream(bodyOf(['data: whole\n\n', 'data: partial\n']), (event) => events.push(event));
    expect(events).toEqual([{ event: 'message', data: 'whole' }]);
  });
});
