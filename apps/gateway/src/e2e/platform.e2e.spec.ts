import { join } from 'node:path';
import { ALL_SERVICES, freshDatabase, privateNatsServer, type NatsServerHandle, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { signAccessToken } from '../auth/tokens.js';

const root = join(import.meta.dirname, '../../../..');

describe('the whole platform, every service as its own process', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;

  beforeAll(async () => {
    nats = await privateNatsServer();
    platform = await startPlatformProcesses({ root, natsUrl: nats.url, databaseUrl: await freshDatabase('e2e_platform') });
  });

  afterAll(async () => {
    await platform.stop();
    await nats.dispose();
  });

  it('has every service live, ready and exporting metrics', async () => {
    for (const service of ALL_SERVICES) {
      expect([service, (await fetch(`${platform.urlOf(service)}/healthz`)).status]).toEqual([service, 200]);
      expect([service, (await fetch(`${platform.urlOf(service)}/readyz`)).status]).toEqual([service, 200]);
      expect(await (await fetch(`${platform.urlOf(service)}/metrics`)).text()).toContain('process_cpu_user_seconds_total');
    }
  });

  it('answers through the gateway only with a valid bearer token', async () => {
    expect((await fetch(`${platform.gatewayUrl}/runs`)).status).toBe(401);
    const token = await signAccessToken({ secret: platform.jwtSecret, issuer: 'openpaw', audience: 'openpaw-api' }, 'e2e-user');
    const runs = await fetch(`${platform.gatewayUrl}/runs`, { headers: { authorization: `Bearer ${token}` } });
    expect(runs.status).toBe(200);
    expect(await runs.json()).toEqual({ items: [] });
    expect((await fetch(`${platform.gatewayUrl}/docs/openapi.json`)).status).toBe(200);
  });
});
