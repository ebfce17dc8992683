import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { MediaRejectedError } from './media-rejection.js';
import { type HostResolver, safeFetch, type SafeFetchOptions } from './safe-fetch.js';

const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('safeFetch', () => {
  let server: Server;
  let port: number;
  const openSockets = new Set<Socket>();
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      requests.push(`${req.headers.host ?? ''}${req.url ?? ''}`);
      switch (req.url) {
        case '/ok.png':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG_BYTES.length });
          res.end(PNG_BYTES);
          return;
        case '/problem.txt':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('Solve for x: 2x + 1 = 5');
          return;
        case '/to-ok':
          res.writeHead(302, { location: '/ok.png' });
          res.end();
          return;
        case '/to-private-name':
          res.writeHead(302, { location: 'http://internal.test/secret.png' });
          res.end();
          return;
        case '/to-metadata':
          res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' });
          res.end();
          return;
        case '/loop':
          res.writeHead(302, { location: '/loop' });
          res.end();
          return;
        case '/html':
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html></html>');
          return;
        case '/declared-huge':
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': 50_000_000 });
          res.write(PNG_BYTES);
          return;
        case '/stream-huge': {
          // No content-length: only counting the stream can catch it.
          res.writeHead(200, { 'content-type': 'image/png' });
          const chunk = Buffer.alloc(64 * 1024, 1);
          let sent = 0;
          const push = (): void => {
            while (sent < 4 * 1024 * 1024) {
              sent += chunk.length;
              if (!res.write(chunk)) {
                res.once('drain', push);
                return;
              }
            }
            res.end();
          };
          push();
          return;
        }
        case '/slow':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.write(PNG_BYTES);
          return;
        default:
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('boom');
      }
    });
    server.on('connection', (socket) => {
      openSockets.add(socket);
      socket.on('close', () => openSockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const socket of openSockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const resolverCalls: string[] = [];
  const resolver: HostResolver = (hostname) => {
    resolverCalls.push(hostname);
    switch (hostname) {
      case 'problems.test':
      case 'public-looking.example.com':
        return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
      case 'internal.test':
        return Promise.resolve([{ address: '10.0.0.5', family: 4 }]);
      case 'mixed.test':
        return Promise.resolve([
          { address: '93.184.216.34', family: 4 },
          { address: '::ffff:192.168.0.10', family: 6 },
        ]);
      default:
        return Promise.reject(new Error(`ENOTFOUND ${hostname}`));
    }
  };
  /** The test server is on loopback, so the happy path has to allow loopback explicitly. */
  const allowLocal: SafeFetchOptions = { resolver, allowAddressClasses: ['loopback'] };

  async function rejection(promise: Promise<unknown>): Promise<MediaRejectedError> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof MediaRejectedError) return error;
      throw error;
    }
    throw new Error('expected a rejection');
  }

  it('fetches through the vetted address, never a second DNS answer', async () => {
    resolverCalls.length = 0;
    // "problems.test" does not exist in real DNS: success proves the socket used our pinned answer.
    const fetched = await safeFetch(`http://problems.test:${port}/ok.png`, allowLocal);
    expect(fetched.bytes.equals(PNG_BYTES)).toBe(true);
    expect(fetched.contentType).toBe('image/png');
    expect(fetched.hops).toEqual([{ url: `http://problems.test:${port}/ok.png`, address: '127.0.0.1' }]);
    expect(resolverCalls).toEqual(['problems.test']);
    expect(requests).toContain(`problems.test:${port}/ok.png`);
  });

  it('follows a redirect, vetting the new hop', async () => {
    const fetched = await safeFetch(`http://problems.test:${port}/to-ok`, allowLocal);
    expect(fetched.finalUrl).toBe(`http://problems.test:${port}/ok.png`);
    expect(fetched.hops).toHaveLength(2);
  });

  it('refuses a public-looking name that resolves to loopback', async () => {
    const error = await rejection(safeFetch(`http://public-looking.example.com:${port}/ok.png`, { resolver }));
    expect(error.reason).toBe('unsafe_url');
    expect(error.detail).toMatch(/loopback/);
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    const error = await rejection(safeFetch(`http://problems.test:${port}/to-private-name`, allowLocal));
    expect(error.reason).toBe('unsafe_url');
    expect(error.detail).toMatch(/internal\.test resolves to a private address/);
  });

  it('refuses a redirect to the cloud metadata address', async () => {
    const error = await rejection(safeFetch(`http://problems.test:${port}/to-metadata`, allowLocal));
    expect(error.reason).toBe('unsafe_url');
    expect(error.detail).toMatch(/link_local/);
  });

  it('refuses a name when any of its addresses is internal', async () => {
    const error = await rejection(safeFetch('http://mixed.test/x.png', { resolver }));
    expect(error.reason).toBe('unsafe_url');
    expect(error.detail).toMatch(/192\.168\.0\.10/);
  });

  it.each([
    ['file:///etc/passwd', /scheme file:/],
    ['ftp://example.com/x.png', /scheme ftp:/],
    ['http://user:pw@example.com/x.png', /credentials/],
    ['not a url', /valid absolute URL/],
    ['http://2130706433/x.png', /loopback/],
    ['http://0x7f.1/x.png', /loopback/],
    ['http://[::ffff:127.0.0.1]/x.png', /loopback/],
    ['http://[::1]/x.png', /loopback/],
    ['http://0.0.0.0/x.png', /unspecified/],
  ])('refuses %s', async (url, detail) => {
    const error = await rejection(safeFetch(url, { resolver }));
    expect(error.reason).toBe('unsafe_url');
    expect(error.detail).toMatch(detail);
  });

  it('gives up after the redirect limit', async () => {
    const error = await rejection(safeFetch(`http://problems.test:${port}/loop`, { ...allowLocal, maxRedirects: 3 }));
    expect(error.reason).toBe('fetch_failed');
    expect(error.detail).toMatch(/more than 3 redirects/);
  });

  it('refuses a content type that is not accepted', async () => {
    const error = await rejection(safeFetch(`http://problems.test:${port}/html`, allowLocal));
    expect(error.reason).toBe('unsupported_type');
  });

  it('refuses an oversized body announced by content-length without reading it', async () => {
    const error = await rejection(safeFetch(`http://problems.test:${port}/declared-huge`, { ...allowLocal, maxBytes: 1024 * 1024 }));
    expect(error.reason).toBe('too_large');
    expect(error.detail).toMatch(/declared/);
  });

  it('aborts a streamed body as soon as it passes the limit', async () => {
    const error = await rejection(safeFetch(`http://problems.test:${port}/stream-huge`, { ...allowLocal, maxBytes: 1024 * 1024 }));
    expect(error.reason).toBe('too_large');
    expect(error.detail).toMatch(/exceeds/);
  });

  it('enforces the time limit on a body that never ends', async () => {
    const started = Date.now();
    const error = await rejection(safeFetch(`http://problems.test:${port}/slow`, { ...allowLocal, timeoutMs: 300 }));
    expect(error.reason).toBe('fetch_failed');
    expect(error.detail).toMatch(/time limit/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reports an HTTP error status as fetch_failed', async () => {
    const error = await rejection(safeFetch(`http://problems.test:${port}/missing`, allowLocal));
    expect(error.reason).toBe('fetch_failed');
    expect(error.detail).toMatch(/HTTP 500/);
  });

  it('reports a name that does not resolve as fetch_failed', async () => {
    const error = await rejection(safeFetch('http://nowhere.test/x.png', { resolver }));
    expect(error.reason).toBe('fetch_failed');
  });
});
