import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { findFreePort, type ManagedProcess, type NatsServerHandle, type PostgresServerHandle, privateNatsServer, spawnManaged, startPostgresServer, waitFor } from '@openpaw/testing';
import pg from 'pg';
import { databaseStartupCheck } from './startup-checks.js';

const root = join(import.meta.dirname, '../../..');
const ROLE = 'openpaw_retrieval_check';
const PASSWORD = 'the-right-password';
const STALE = 'a-stale-password';

/**
 * PostgreSQL out of reach or refusing the service's role at start (issue 27, "Bad input and faults"):
 * the service is alive and not ready naming `OPENPAW_DATABASE_URL`, says so once, never exits, and
 * becomes ready without a restart once the role's password matches the Secret. A private PostgreSQL
 * that asks every role but its owner for a password (the shared test cluster trusts everyone).
 */
describe('startup checks: PostgreSQL out of reach or refusing the role', () => {
  let postgres: PostgresServerHandle;
  let nats: NatsServerHandle;
  let databaseUrl: (password: string) => string;

  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: postgres.adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    [postgres, nats] = await Promise.all([startPostgresServer({ passwordAuth: true }), privateNatsServer()]);
    await admin(`create role ${ROLE} login password '${PASSWORD}'`);
    await admin(`create database startup_check owner ${ROLE}`);
    databaseUrl = (password) => `postgres://${ROLE}:${password}@${postgres.host}:${postgres.port}/startup_check`;
  });

  afterAll(async () => {
    await Promise.all([postgres?.dispose(), nats?.dispose()]);
  });

  it('names OPENPAW_DATABASE_URL for each way the database can be wrong, never shows the password, and passes with the right one', async () => {
    const where = `${postgres.host}:${postgres.port}/startup_check`;
    expect(await databaseStartupCheck(databaseUrl(PASSWORD))()).toBeUndefined();
    const refused = await databaseStartupCheck(databaseUrl(STALE))();
    expect(refused).toEqual({ setting: 'OPENPAW_DATABASE_URL', detail: `PostgreSQL at ${where} refused the credentials of role "${ROLE}" (password authentication failed for user "${ROLE}")` });
    expect(JSON.stringify(refused)).not.toContain(STALE);
    expect(await databaseStartupCheck(`postgres://nobody_here:x@${postgres.host}:${postgres.port}/startup_check`)()).toMatchObject({ detail: expect.stringContaining('refused the credentials of role "nobody_here"') });
    expect(await databaseStartupCheck(`postgres://${ROLE}:${PASSWORD}@${postgres.host}:${postgres.port}/no_such_db`)()).toMatchObject({ setting: 'OPENPAW_DATABASE_URL', detail: expect.stringContaining('has no such database') });
    expect(await databaseStartupCheck('not a url')()).toMatchObject({ setting: 'OPENPAW_DATABASE_URL', detail: expect.stringContaining('is not a URL') });
    const nobody = await findFreePort();
    expect(await databaseStartupCheck(`postgres://${ROLE}:${PASSWORD}@127.0.0.1:${nobody}/startup_check`)()).toMatchObject({
      setting: 'OPENPAW_DATABASE_URL',
      detail: expect.stringContaining(`no PostgreSQL accepted a connection at 127.0.0.1:${nobody}/startup_check`),
    });
  });

  it('reports PostgreSQL out of reach while it is down, and passes again once it is back', async () => {
    const check = databaseStartupCheck(databaseUrl(PASSWORD));
    const restarting = postgres.crashAndRestart(3_000);
    let whileDown: Awaited<ReturnType<typeof check>>;
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      whileDown = await check();
    } finally {
      await restarting;
    }
    expect(whileDown).toMatchObject({ setting: 'OPENPAW_DATABASE_URL', detail: expect.stringContaining('no PostgreSQL accepted a connection') });
    // Crash recovery: "the database system is starting up" counts as out of reach until it accepts the role.
    await waitFor(async () => ((await check()) === undefined ? true : undefined), 'PostgreSQL back after crash recovery', 30_000);
  });

  it('the retrieval service stays alive and not ready naming OPENPAW_DATABASE_URL, and is ready without a restart once the role password matches', async () => {
    const migrate = spawnSync(process.execPath, [join(root, 'dist/tools/migrate.js')], { env: { ...process.env, OPENPAW_DATABASE_URL: databaseUrl(PASSWORD) }, encoding: 'utf8' });
    expect({ status: migrate.status, stderr: migrate.status === 0 ? '' : migrate.stderr }).toEqual({ status: 0, stderr: '' });
    // The password was rotated in PostgreSQL before the Secret caught up.
    await admin(`alter role ${ROLE} password '${STALE}'`);
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const probe = async (path: string): Promise<{ status: number; body: Record<string, unknown> } | undefined> =>
      fetch(`${url}${path}`).then(
        async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
        () => undefined,
      );
    const service: ManagedProcess = spawnManaged(process.execPath, [join(root, 'dist/apps/retrieval/src/main.js')], {
      cwd: root,
      env: { ...process.env, OPENPAW_NATS_URL: nats.url, OPENPAW_DATABASE_URL: databaseUrl(PASSWORD), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    });
    try {
      const notReady = await waitFor(async () => ((await probe('/readyz'))?.body['status'] === 'not_ready' ? probe('/readyz') : undefined), 'retrieval to report not ready', 30_000);
      expect(notReady).toMatchObject({ status: 503, body: { service: 'retrieval', setting: 'OPENPAW_DATABASE_URL', detail: expect.stringContaining(`refused the credentials of role "${ROLE}"`) } });
      // Several checks later (every 2 s) it is still alive and not ready, and said why once.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect({ exitCode: service.child.exitCode, signal: service.child.signalCode }).toEqual({ exitCode: null, signal: null });
      expect((await probe('/healthz'))?.status).toBe(200);
      expect((await probe('/readyz'))?.status).toBe(503);
      expect(service.output().match(/retrieval not ready: OPENPAW_DATABASE_URL: PostgreSQL at \S+ refused the credentials/g)).toHaveLength(1);
      expect(service.output()).not.toContain(PASSWORD);

      await admin(`alter role ${ROLE} password '${PASSWORD}'`);
      const ready = await waitFor(async () => ((await probe('/readyz'))?.status === 200 ? probe('/readyz') : undefined), 'retrieval ready once the role password matches', 60_000);
      expect(ready?.body).toMatchObject({ status: 'ok' });
      expect(service.output()).toContain('retrieval: startup checks pass, starting');
    } finally {
      await service.stop();
    }
  }, 120_000);
});
