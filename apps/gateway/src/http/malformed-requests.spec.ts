import { createServer, type Server } from 'node:http';
import { type AddressInfo, createConnection } from 'node:net';
import { answerMalformedRequests } from './malformed-requests.js';

/** Sends raw bytes (what a fetch client refuses to send) and answers the gateway's JSON error body. */
async function send(server: Server, request: string): Promise<{ statusLine: string; body: { error: string; message: string } }> {
  const { port } = server.address() as AddressInfo;
  const answer = await new Promise<string>((resolve, reject) => {
    let received = '';
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(request, 'latin1'));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
  const [head = '', body = ''] = answer.split(/\r\n\r\n([\s\S]*)/);
  return { statusLine: head.split('\r\n')[0] ?? '', body: JSON.parse(body) as { error: string; message: string } };
}

describe('answerMalformedRequests', () => {
  let server: Server;
  const handled: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      handled.push(request.url ?? '');
      response.end('handled');
    });
    answerMalformedRequests(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    ['a NUL in the path', 'POST /prob\u0000lems HTTP/1.1\r\nHost: x\r\n\r\n', /Invalid char in url path: byte 0x00 \(NUL\) in the request line$/],
    ['a NUL in the query', 'GET /runs?limit=1\u0000 HTTP/1.1\r\nHost: x\r\n\r\n', /Invalid char in url query: byte 0x00 \(NUL\) in the request line$/],
    ['a NUL after the method', 'POST\u0000 /problems HTTP/1.1\r\nHost: x\r\n\r\n', /: byte 0x00 \(NUL\) in the request line$/],
    ['a NUL after the version', 'POST /problems HTTP/1.1\u0000\r\nHost: x\r\n\r\n', /: byte 0x00 \(NUL\) in the request line$/],
    ['a NUL in a header name', 'POST /problems HTTP/1.1\r\nHost: x\r\nX-No\u0000te: v\r\n\r\n', /Invalid header token: byte 0x00 \(NUL\) in a header name \(after "X-No"\) \(a header name or value/],
    ['a BEL in a header value', 'POST /problems HTTP/1.1\r\nHost: x\r\nX-Note: a\u0007b\r\n\r\n', /Invalid header value char: byte 0x07 \(BEL\) in the value of the header X-Note \(a header name or value/],
    ['a space in a header name', 'POST /problems HTTP/1.1\r\nHost: x\r\nX Note: v\r\n\r\n', /Invalid header token: byte 0x20 \(space\) in a header name \(after "X"\)/],
  ])('answers %s with a JSON 400 naming the byte and where it is, before any handler', async (_case, request, message) => {
    const refused = await send(server, request);
    expect(refused.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(refused.body).toEqual({ error: 'bad_request', message: expect.stringMatching(message) });
    expect(handled).toEqual([]);
  });
});
