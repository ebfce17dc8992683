import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { freshDatabase, privateNatsServer, type NatsServerHandle } from '@openpaw/testing';
import { signAccessToken } from '../auth/tokens.js';
import type { GatewayConfig } from '../config.js';
import { SAVED_VIEWS_PER_USER } from './run-views.schemas.js';
import { intSpecGatewayConfig, startIntSpecGateway } from '../testing/int-spec-gateway.js';

process.env['LOG_LEVEL'] ??= 'warn';

/** Saved views of the runs list through the real gateway, on a real PostgreSQL (and nats-server, which the gateway needs to start). */
describe('saved views of the runs list (real PostgreSQL)', () => {
  let nats: NatsServerHandle;
  let app: INestApplication;
  let url: string;
  let blobDir: string;
  let aliceToken: string;
  let bobToken: string;

  const call = async (method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };

  beforeAll(async () => {
    nats = await privateNatsServer();
    blobDir = await mkdtemp(join(tmpdir(), 'openpaw-run-views-blobs-'));
    const config: GatewayConfig = intSpecGatewayConfig({ natsUrl: nats.url, databaseUrl: await freshDatabase('gateway_run_views'), blobDir });
    ({ app, url } = await startIntSpecGateway(config));
    aliceToken = await signAccessToken(config.jwt, 'view-alice');
    bobToken = await signAccessToken(config.jwt, 'view-bob');
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await nats?.dispose();
    if (blobDir !== undefined) await rm(blobDir, { recursive: true, force: true });
  });

  it('saves a view, lists it to its owner only, and deletes it', async () => {
    const filter = { type: 'retrieve_or_generate', state: 'FAILED', from: '2026-11-01', q: 'ABC1' };
    const saved = await call('POST', '/run-views', aliceToken, { name: '  Failed problems  ', filter });
    expect(saved).toEqual({ status: 201, body: { name: 'Failed problems', filter: { ...filter, q: 'abc1' }, createdAt: expect.any(String) } });

    expect(await call('GET', '/run-views', aliceToken)).toEqual({ status: 200, body: { views: [saved.body], limit: SAVED_VIEWS_PER_USER } });
    expect(await call('GET', '/run-views', bobToken)).toEqual({ status: 200, body: { views: [], limit: SAVED_VIEWS_PER_USER } });
    // Bob cannot delete Alice's view, and may use the same name for his own.
    expect((await call('DELETE', `/run-views/${encodeURIComponent('Failed problems')}`, bobToken)).status).toBe(404);
    expect((await call('POST', '/run-views', bobToken, { name: 'Failed problems', filter: {} })).status).toBe(201);

    expect((await call('DELETE', `/run-views/${encodeURIComponent('Failed problems')}`, aliceToken)).status).toBe(204);
    expect(await call('GET', '/run-views', aliceToken)).toEqual({ status: 200, body: { views: [], limit: SAVED_VIEWS_PER_USER } });
    expect(await call('DELETE', `/run-views/${encodeURIComponent('Failed problems')}`, aliceToken)).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'you have no view named "Failed problems"' },
    });
  });

  it('refuses a bad name or filter with 400 naming the field, and a taken name with 409', async () => {
    const refusedPath = async (body: unknown): Promise<unknown> => {
      const response = await call('POST', '/run-views', aliceToken, body);
      expect(response.status).toBe(400);
      return (response.body as { issues: { path: string }[] }).issues.map((issue) => issue.path);
    };
    expect(await refusedPath({ name: '   ', filter: {} })).toEqual(['name']);
    expect(await refusedPath({ name: 'x'.repeat(61), filter: {} })).toEqual(['name']);
    expect(await refusedPath({ name: 'tab\there', filter: {} })).toEqual(['name']);
    expect(await refusedPath({ filter: {} })).toEqual(['name']);
    expect(await refusedPath({ name: 'dates', filter: { from: '1 Nov' } })).toEqual(['filter.from']);
    expect(await refusedPath({ name: 'ids', filter: { q: 'not-hex!' } })).toEqual(['filter.q']);
    expect(await refusedPath({ name: 'extra', filter: { colour: 'red' } })).toEqual(['filter,colour']);

    expect((await call('POST', '/run-views', aliceToken, { name: 'Mine', filter: {} })).status).toBe(201);
    expect(await call('POST', '/run-views', aliceToken, { name: 'Mine', filter: { state: 'FAILED' } })).toEqual({
      status: 409,
      body: { error: 'name_taken', message: 'you already have a view named "Mine"; delete it first or choose another name' },
    });
    expect((await call('DELETE', '/run-views/Mine', aliceToken)).status).toBe(204);
    expect((await call('GET', '/run-views', undefined)).status).toBe(401);
  });

  it(`keeps at most ${SAVED_VIEWS_PER_USER} views per user, even when saved at once (409 saying so)`, async () => {
    const saves = await Promise.all(
      Array.from({ length: SAVED_VIEWS_PER_USER + 3 }, (_, index) => call('POST', '/run-views', aliceToken, { name: `view ${index}`, filter: { state: 'RUNNING' } })),
    );
    expect(saves.filter((save) => save.status === 201)).toHaveLength(SAVED_VIEWS_PER_USER);
    const refused = saves.filter((save) => save.status !== 201);
    expect(refused).toHaveLength(3);
    for (const refusal of refused) {
      expect(refusal).toEqual({ status: 409, body: { error: 'view_limit_reached', message: `you have ${SAVED_VIEWS_PER_USER} saved views, the most allowed; delete one to save another` } });
    }
    const { body } = await call('GET', '/run-views', aliceToken);
    expect((body as { views: unknown[] }).views).toHaveLength(SAVED_VIEWS_PER_USER);
    // Another user's views are counted apart.
    expect((await call('POST', '/run-views', bobToken, { name: 'still room', filter: {} })).status).toBe(201);
  });
});
