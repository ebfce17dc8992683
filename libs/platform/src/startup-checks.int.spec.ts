import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, freshDatabase, type ManagedProcess, spawnManaged, startConfiguredNatsServer, waitFor } from '@openpaw/testing';
import { natsStartupCheck } from './startup-checks.js';

const root = join(import.meta.dirname, '../../..');
const USER = 'openpaw-retrieval';
const PASSWORD = 'the-right-password';

/**
 * A Secret with a wrong or unusable NATS credential (issue 27, "Bad input and faults"): the service
 * reports not ready naming the setting, stays alive (liveness 200, no exit, so no restart loop that
 * loses work), and is ready once started with the fixed Secret. A real nats-server that requires a
 * user, the retrieval service from `dist/` as its Deployment runs it.
 */
describe('startup checks: a wrong NATS credential', () => {
  let nats: ManagedProcess;
  let natsUrl: string;
  let store: string;

  beforeAll(async () => {
    store = mkdtempSync(join(tmpdir(), 'openpaw-nats-auth-'));
    const conf = join(store, 'nats.conf');
    // Ready on its own "Server is ready" line, on another port if one was taken meanwhile (libs/testing).
    const started = await startConfiguredNatsServer((port) => {
      writeFileSync(conf, `listen: 127.0.0.1:${port}\njetstream { store_dir: ${JSON.stringify(join(store, 'js'))} }\nauthorization { user: ${JSON.stringify(USER)}, password: ${JSON.stringify(PASSWORD)} }\n`);
      return conf;
    });
    nats = started.proc;
    natsUrl = `nats://127.0.0.1:${started.port}`;
  });

  afterAll(async () => {
    await nats?.stop();
    rmSync(store, { recursive: true, force: true });
  });

  it('names the setting at fault for each way the credential can be wrong, and passes with the right one', async () => {
    const check = (env: NodeJS.ProcessEnv) => natsStartupCheck('spec', () => ({ OPENPAW_NATS_URL: natsUrl, ...env }))();
    expect(await check({ OPENPAW_NATS_USER: USER, OPENPAW_NATS_PASSWORD: PASSWORD })).toBeUndefined();
    expect(await check({ OPENPAW_NATS_USER: USER, OPENPAW_NATS_PASSWORD: 'wrong' })).toEqual({
      setting: 'OPENPAW_NATS_USER/OPENPAW_NATS_PASSWORD',
      detail: `the NATS server at ${natsUrl} refused the credentials (Authorization Violation)`,
    });
    expect(await check({})).toMatchObject({ setting: 'OPENPAW_NATS_USER/OPENPAW_NATS_PASSWORD (not set)' });
    expect(await check({ OPENPAW_NATS_USER: USER })).toMatchObject({ setting: 'OPENPAW_NATS_USER', detail: expect.stringContaining('go together') });
    expect(await check({ OPENPAW_NATS_CREDS_FILE: join(store, 'missing.creds') })).toMatchObject({ setting: 'OPENPAW_NATS_CREDS_FILE', detail: expect.stringContaining('ENOENT') });
    const nobody = `nats://127.0.0.1:${await findFreePort()}`;
    expect(await natsStartupCheck('spec', () => ({ OPENPAW_NATS_URL: nobody }))()).toMatchObject({ setting: 'OPENPAW_NATS_URL', detail: expect.stringContaining(nobody) });
  });

  it('the retrieval service stays alive and not ready naming the setting, and is ready once restarted with the fixed Secret', async () => {
    const databaseUrl = await freshDatabase('startup_checks');
    const migrate = spawnSync(process.execPath, [join(root, 'dist/tools/migrate.js')], { env: { ...process.env, OPENPAW_DATABASE_URL: databaseUrl }, encoding: 'utf8' });
    expect({ status: migrate.status, stderr: migrate.status === 0 ? '' : migrate.stderr }).toEqual({ status: 0, stderr: '' });
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const start = (password: string): ManagedProcess =>
      spawnManaged(process.execPath, [join(root, 'dist/apps/retrieval/src/main.js')], {
        cwd: root,
        env: { ...process.env, OPENPAW_NATS_URL: natsUrl, OPENPAW_DATABASE_URL: databaseUrl, OPENPAW_NATS_USER: USER, OPENPAW_NATS_PASSWORD: password, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      });
    const probe = async (path: string): Promise<{ status: number; body: Record<string, unknown> } | undefined> =>
      fetch(`${url}${path}`).then(
        async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
        () => undefined,
      );

    const wrong = start('a-stale-password');
    try {
      const notReady = await waitFor(async () => ((await probe('/readyz'))?.body['status'] === 'not_ready' ? probe('/readyz') : undefined), 'retrieval to report not ready', 30_000);
      expect(notReady).toMatchObject({ status: 503, body: { service: 'retrieval', setting: 'OPENPAW_NATS_USER/OPENPAW_NATS_PASSWORD', detail: expect.stringContaining('Authorization Violation') } });
      // Several checks later it is still alive and not ready, and said why once (not once per check).
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      expect({ exitCode: wrong.child.exitCode, signal: wrong.child.signalCode }).toEqual({ exitCode: null, signal: null });
      expect((await probe('/healthz'))?.status).toBe(200);
      expect((await probe('/readyz'))?.status).toBe(503);
      expect(wrong.output().match(/retrieval not ready: OPENPAW_NATS_USER\/OPENPAW_NATS_PASSWORD: the NATS server at \S+ refused the credentials/g)).toHaveLength(1);
    } finally {
      await wrong.stop();
    }

    const fixed = start(PASSWORD);
    try {
      const ready = await waitFor(async () => ((await probe('/readyz'))?.status === 200 ? probe('/readyz') : undefined), 'retrieval ready with the fixed Secret', 90_000);
      expect(ready?.body).toMatchObject({ status: 'ok', details: { nats: { status: 'up' } } });
    } finally {
      await fixed.stop();
    }
  }, 180_000);
});
