import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExpressAdapter } from '@nestjs/platform-express';
import { CONSOLE_CSP, consoleStatic } from './console-static.js';

describe('the console served as static files', () => {
  let dir: string;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openpaw-console-'));
    mkdirSync(join(dir, 'public'));
    writeFileSync(join(dir, 'public/index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dir, 'public/main-ABCD1234.js'), 'export {};');
    writeFileSync(join(dir, 'secret.txt'), 'outside the console folder');
    // Served as the gateway serves it (configure.ts): on Nest's Express adapter.
    const adapter = new ExpressAdapter();
    adapter.use('/console', consoleStatic(join(dir, 'public')));
    adapter.initHttpServer({});
    server = adapter.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('given the bare path, then redirects to the folder so relative URLs resolve under it', async () => {
    const response = await fetch(`${base}/console`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/console/');
  });

  it('serves index.html with the CSP, revalidated every time; hashed bundles are immutable', async () => {
    const index = await fetch(`${base}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    const bundle = await fetch(`${base}/console/main-ABCD1234.js`);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('never serves a file outside its folder, however the path is encoded', async () => {
    for (const path of ['/console/../secret.txt', '/console/%2e%2e/secret.txt', '/console/..%2fsecret.txt', '/console/%E0%A4%A', '/console/missing.js']) {
      const response = await fetch(`${base}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(await response.text()).not.toContain('outside the console folder');
    }
  });
});
