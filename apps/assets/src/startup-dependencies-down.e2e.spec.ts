import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, type ManagedProcess, type NatsServerHandle, type PostgresServerHandle, spawnManaged, startNatsServer, startPostgresServer, waitFor } from '@openpaw/testing';

/**
 * Flow control, start-up: a service started while NATS and PostgreSQL are both down stays alive,
 * answers `/healthz` 200 and `/readyz` 503, retries, and becomes ready once they are up. (The assets
 * service from the build; every service shares the bootstrap, connection and database code.)
 */
const root = join(import.meta.dirname, '../../..');

async function status(url: string): Promise<number | undefined> {
  return fetch(url).then(
    (r) => r.status,
    () => undefined,
  );
}

describe('start-up with dependencies down (assets service from the build)', () => {
  let service: ManagedProcess | undefined;
  let nats: NatsServerHandle | undefined;
  let postgres: PostgresServerHandle | undefined;
  const blobDir = mkdtempSync(join(tmpdir(), 'openpaw-startup-'));

  afterAll(async () => {
    await service?.stop('SIGTERM', 10_000);
    await nats?.dispose();
    await postgres?.dispose();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('is alive and not ready while NATS and PostgreSQL are down, and ready once they return', async () => {
    const [natsPort, pgPort, httpPort] = [await findFreePort(), await findFreePort(), await findFreePort()];
    service = spawnManaged(process.execPath, [join(root, 'dist/apps/assets/src/main.js')], {
      cwd: root,
      env: {
        ...process.env,
        OPENPAW_NATS_URL: `nats://127.0.0.1:${natsPort}`,
        OPENPAW_DATABASE_URL: `postgres://openpaw@127.0.0.1:${pgPort}/postgres`,
        OPENPAW_BLOB_DIR: blobDir,
        PORT: String(httpPort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
    });
    const base = `http://127.0.0.1:${httpPort}`;
    await waitFor(async () => ((await status(`${base}/healthz`)) === 200 ? true : undefined), '/healthz answering while the dependencies are down');
    expect(await status(`${base}/readyz`)).toBe(503);
    // Still alive, still not ready, a few seconds later: it waits rather than exits.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(service.child.exitCode).toBeNull();
    expect(await status(`${base}/readyz`)).toBe(503);

    nats = await startNatsServer({ port: natsPort });
    postgres = await startPostgresServer({ port: pgPort });
    await waitFor(async () => ((await status(`${base}/readyz`)) === 200 ? true : undefined), '/readyz 200 once NATS and PostgreSQL are up', 90_000);
    expect(service.child.exitCode).toBeNull();
  }, 150_000);
});
