import { type INestApplication, Module } from '@nestjs/common';
import { startService } from './bootstrap.js';
import { InternalHttpServer, internalPortFromEnv } from './internal-server.js';
import { PlatformModule } from './platform.module.js';

@Module({ imports: [PlatformModule.forService('internal-port-spec', { logLevel: 'silent' })] })
class SpecModule {}

describe('metrics on the internal port (METRICS_PORT)', () => {
  let app: INestApplication;
  let url: string;
  let internal: string;

  beforeAll(async () => {
    process.env['METRICS_PORT'] = '0';
    try {
      ({ app, url } = await startService({ name: 'internal-port-spec', module: SpecModule, defaultPort: 0, port: 0 }));
    } finally {
      delete process.env['METRICS_PORT'];
    }
    internal = `http://127.0.0.1:${app.get(InternalHttpServer).boundPort()}`;
  });

  afterAll(async () => {
    await app.close();
  });

  it('serves /metrics on the internal port only; the public port answers 404; extra routes can be added', async () => {
    const scrape = await fetch(`${internal}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('openpaw_');
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${internal}/healthz`)).status).toBe(404);
    app.get(InternalHttpServer).add('/docs/openapi.json', () => Promise.resolve({ contentType: 'application/json', body: '{"openapi":"3.0.0"}' }));
    expect(await (await fetch(`${internal}/docs/openapi.json`)).json()).toEqual({ openapi: '3.0.0' });
  });

  it('reads METRICS_PORT', () => {
    expect(internalPortFromEnv({})).toBeUndefined();
    expect(internalPortFromEnv({ METRICS_PORT: '9464' })).toBe(9464);
    expect(() => internalPortFromEnv({ METRICS_PORT: 'metrics' })).toThrow('METRICS_PORT');
  });
});
