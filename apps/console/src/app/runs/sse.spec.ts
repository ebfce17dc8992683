import { ServerSentEventParser } from './sse.js';

describe('reading the run event stream', () => {
  it('given chunks split anywhere, when fed, then yields each complete event once, skipping heartbeat comments', () => {
    const parser = new ServerSentEventParser();
    const stream = ': heartbeat\n\nevent: state\nid: 3\ndata: {"state":"INGESTING"}\n\nevent: state\r\nid: 4\r\ndata: {"state":\r\ndata: "SUCCEEDED"}\r\n\r\n';
    const events = [stream.slice(0, 20), stream.slice(20, 57), stream.slice(57, 90), stream.slice(90)].flatMap((chunk) => parser.feed(chunk));
    expect(events).toEqual([
      { event: 'state', id: '3', data: '{"state":"INGESTING"}' },
      { event: 'state', id: '4', data: '{"state":\n"SUCCEEDED"}' },
    ]);
  });

  it('given an event without a blank line yet, when fed, then holds it back', () => {
    const parser = new ServerSentEventParser();
    expect(parser.feed('data: partial\n')).toEqual([]);
    expect(parser.feed('\n')).toEqual([{ event: 'message', data: 'partial' }]);
  });
});
