import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { pinoHttp, type Options } from 'pino-http';
import { loggerParams } from './logging.js';

/** The request logger a service gets (`loggerParams`), writing its lines into `lines`. */
function serverLogging(lines: Record<string, unknown>[]): Server {
  const options = loggerParams('spec-service', { level: 'info' }).pinoHttp as Options;
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter((l) => l !== '')) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const log = pinoHttp({ ...options, logger: pino(options as pino.LoggerOptions, destination) });
  return createServer((req, res) => {
    log(req, res);
    res.statusCode = req.url?.startsWith('/missing') === true ? 404 : 200;
    res.end('{}');
  });
}

async function get(server: Server, path: string, headers: Record<string, string>): Promise<void> {
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers }, (res) => res.resume().on('end', resolve)).on('error', reject).end();
  });
}

describe('the access log line of a request', () => {
  let server: Server;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    server = serverLogging(lines);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('names the request (id, method, url) and its status, and carries no header: no credential, no cookie, no client detail', async () => {
    await get(server, '/v1/problems?wait=5', { authorization: 'Bearer secret-token', cookie: 'share=abc', 'user-agent': 'spec' });
    await get(server, '/missing', {});
    const access = lines.filter((line) => line['msg'] === 'request completed' || line['msg'] === 'request errored');
    expect(access.map((line) => ({ req: line['req'], res: line['res'], service: line['service'] }))).toEqual([
      { req: { id: 1, method: 'GET', url: '/v1/problems?wait=5' }, res: { statusCode: 200 }, service: 'spec-service' },
      { req: { id: 2, method: 'GET', url: '/missing' }, res: { statusCode: 404 }, service: 'spec-service' },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/secret-token|share=abc|user-agent/);
    expect(access.every((line) => typeof line['responseTime'] === 'number')).toBe(true);
  });

  it('is not written for the probes', async () => {
    const before = lines.length;
    await get(server, '/healthz', {});
    await get(server, '/metrics', {});
    expect(lines.length).toBe(before);
  });
});
