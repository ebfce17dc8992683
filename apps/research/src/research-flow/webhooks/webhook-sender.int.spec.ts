import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { HostResolver, ResolvedAddress } from './host-resolver.js';
import { WebhookSender } from './webhook-sender.js';

interface Endpoint {
  readonly port: number;
  /** TCP connections accepted (a refused delivery opens none). */
  connections: number;
  readonly received: { readonly headers: IncomingHttpHeaders; readonly body: string }[];
}

/** A receiver on 127.0.0.1 answering `status` (with `headers`) to every request, or never when `status` is undefined. */
async function startEndpoint(servers: NetServer[], status: number | undefined, headers: Record<string, string> = {}): Promise<Endpoint> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      endpoint.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (status === undefined) return;
      res.writeHead(status, headers);
      res.end();
    });
  });
  server.on('connection', () => {
    endpoint.connections += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint: Endpoint = { port: (server.address() as AddressInfo).port, connections: 0, received: [] };
  return endpoint;
}

/** A resolver answering from a table, one answer per call in turn (the last repeats), recording each name asked. */
function scriptedResolver(answers: Record<string, readonly (readonly ResolvedAddress[])[]>): HostResolver & { readonly asked: string[] } {
  const asked: string[] = [];
  const resolver = (hostname: string): Promise<readonly ResolvedAddress[]> => {
    const calls = asked.filter((name) => name === hostname).length;
    asked.push(hostname);
    const script = answers[hostname];
    if (script === undefined) return Promise.reject(new Error(`getaddrinfo ENOTFOUND ${hostname}`));
    return Promise.resolve(script[Math.min(calls, script.length - 1)] ?? []);
  };
  return Object.assign(resolver, { asked });
}

const loopback: ResolvedAddress = { address: '127.0.0.1', family: 4 };
const delivery = (url: string) => ({ url, body: '{"id":"e1"}', headers: { 'x-openpaw-event-id': 'e1' } });

describe('webhook sender (scripted resolver, receivers on 127.0.0.1)', () => {
  const servers: NetServer[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  describe('private addresses not allowed', () => {
    it('refuses a name that resolves to 127.0.0.1, naming the address, and connects to nothing', async () => {
      const endpoint = await startEndpoint(servers, 204);
      const resolveHost = scriptedResolver({ 'hooks.example.test': [[loopback]] });
      const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: false, resolveHost });

      const attempt = await sender.send(delivery(`http://hooks.example.test:${endpoint.port}/hook`));

      expect(attempt.kind).toBe('refused');
      expect(attempt.kind === 'refused' && attempt.reason).toBe('hooks.example.test resolves to 127.0.0.1 (loopback, 127.0.0.0/8); only public addresses are called');
      expect(resolveHost.asked).toEqual(['hooks.example.test']);
      expect(endpoint.connections).toBe(0);
    });

    it('refuses a name when any one of its addresses is private (the metadata address among public ones), or IPv4-mapped loopback', async () => {
      const resolveHost = scriptedResolver({
        'mixed.example.test': [
          [
            { address: '93.184.216.34', family: 4 },
            { address: '169.254.169.254', family: 4 },
          ],
        ],
        'mapped.example.test': [[{ address: '::ffff:127.0.0.1', family: 6 }]],
      });
      const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: false, resolveHost });

      expect(await sender.send(delivery('https://mixed.example.test/hook'))).toEqual({
        kind: 'refused',
        reason: 'mixed.example.test resolves to 169.254.169.254 (link-local, 169.254.0.0/16); only public addresses are called',
      });
      expect(await sender.send(delivery('https://mapped.example.test/hook'))).toMatchObject({ kind: 'refused', reason: expect.stringContaining('resolves to ::ffff:127.0.0.1 (IPv4-mapped loopback') as unknown });
    });

    it('refuses an address written in the URL without asking the resolver (also in another notation)', async () => {
      const endpoint = await startEndpoint(servers, 204);
      const resolveHost = scriptedResolver({});
      const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: false, resolveHost });

      for (const url of [`http://127.0.0.1:${endpoint.port}/`, `http://0x7f.1:${endpoint.port}/`, `http://[::ffff:7f00:1]:${endpoint.port}/`, `http://[::1]:${endpoint.port}/`]) {
        expect(await sender.send(delivery(url))).toMatchObject({ kind: 'refused', reason: expect.stringContaining('loopback') as unknown });
      }
      expect(resolveHost.asked).toEqual([]);
      expect(endpoint.connections).toBe(0);
    });

    it('retries later a name that does not resolve, saying so', async () => {
      const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: false, resolveHost: scriptedResolver({ 'empty.example.test': [[]] }) });
      expect(await sender.send(delivery('https://gone.example.test/hook'))).toEqual({ kind: 'retry', reason: 'cannot resolve gone.example.test: getaddrinfo ENOTFOUND gone.example.test' });
      expect(await sender.send(delivery('https://empty.example.test/hook'))).toEqual({ kind: 'retry', reason: 'empty.example.test resolves to no address' });
    });
  });

  describe('private addresses allowed (local demos and tests)', () => {
    it('resolves once and connects to the vetted address even when the name would resolve elsewhere by then (rebinding), keeping the Host header', async () => {
      const endpoint = await startEndpoint(servers, 204);
      // The first answer is the one vetted; any later resolution would send the call to an unroutable documentation address.
      const resolveHost = scriptedResolver({ 'hooks.example.test': [[loopback], [{ address: '192.0.2.1', family: 4 }]] });
      const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: true, resolveHost });

      const attempt = await sender.send(delivery(`http://hooks.example.test:${endpoint.port}/hook?x=1`));

      expect(attempt).toEqual({ kind: 'delivered', status: 204 });
      expect(resolveHost.asked).toEqual(['hooks.example.test']);
      expect(endpoint.received).toHaveLength(1);
      expect(endpoint.received[0]?.headers).toMatchObject({ host: `hooks.example.test:${endpoint.port}`, 'content-type': 'application/json', 'x-openpaw-event-id': 'e1' });
      expect(endpoint.received[0]?.body).toBe('{"id":"e1"}');
    });

    it('does not follow a redirect: the delivery is refused with the reason and the target is never called', async () => {
      const target = await startEndpoint(servers, 204);
      const redirecting = await startEndpoint(servers, 307, { location: `http://127.0.0.1:${target.port}/elsewhere` });
      const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: true });

      const attempt = await sender.send(delivery(`http://127.0.0.1:${redirecting.port}/hook`));

      expect(attempt).toEqual({ kind: 'refused', reason: 'answered a redirect (307); redirects are not followed' });
      expect(redirecting.received).toHaveLength(1);
      expect(target.connections).toBe(0);
    });

    it('sends the URL’s host name as the TLS server name while connecting to the vetted address', async () => {
      const serverNames: string[] = [];
      // Records the ClientHello's server name, then ends the handshake: the delivery fails, the name is what matters here.
      const tls = createTlsServer({
        SNICallback: (servername, callback) => {
          serverNames.push(servername);
          callback(new Error('no certificate here'));
        },
      });
      tls.on('tlsClientError', () => undefined);
      servers.push(tls);
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
      const port = (tls.address() as AddressInfo).port;
      const sender = new WebhookSender({ timeoutMs: 5_000, allowPrivateAddresses: true, resolveHost: scriptedResolver({ 'secure.example.test': [[loopback]] }) });

      const attempt = await sender.send(delivery(`https://secure.example.test:${port}/hook`));

      expect(attempt.kind).toBe('retry');
      expect(serverNames).toEqual(['secure.example.test']);
    });

    it('gives up on an endpoint that does not answer within the time limit, to retry later', async () => {
      const silent = await startEndpoint(servers, undefined);
      const sender = new WebhookSender({ timeoutMs: 300, allowPrivateAddresses: true });
      expect(await sender.send(delivery(`http://127.0.0.1:${silent.port}/hook`))).toEqual({ kind: 'retry', reason: 'no answer within 300 ms' });
    });
  });
});
