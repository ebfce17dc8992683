import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, provisionStreams } from '@openpaw/messaging';
import { findFreePort, freshDatabase, type ManagedProcess, natsCredsFileText, newNatsUserKey, spawnManaged, startConfiguredNatsServer, waitFor } from '@openpaw/testing';

const root = join(import.meta.dirname, '../../..');
const ADMIN = { user: 'provisioner', password: 'provisioner-secret' };

type Key = ReturnType<typeof newNatsUserKey>;

/**
 * The credentials the manifests give every workload (issue 27, "Bad input and faults"; runbook,
 * "Rotating NATS credentials"): a `.creds` file from a Secret volume named by
 * `OPENPAW_NATS_CREDS_FILE`, which the kubelet replaces in place. A service whose file holds a key the
 * server does not know stays alive and not ready naming that setting, and is ready once the file is
 * fixed, in the same process (no restart). A rotation by overlap, the old key then removed and the
 * server reloaded, moves the running service to the new key, again without a restart. A real
 * nats-server (config-file accounts, nkey users, as production's) and the retrieval service from `dist/`.
 */
describe('a service on a NATS creds file (a Secret volume): recovery and rotation without a restart', () => {
  let dir: string;
  let conf: string;
  let nats: ManagedProcess;
  let natsUrl: string;
  let monitorUrl: string;

  /** Writes the server's config with these users' keys (the accounts block ops keep in a Secret) and, once started, reloads it. */
  const configure = (keys: readonly Key[], port: number, monitorPort: number): void => {
    const users = [...keys.map((key) => `{ nkey: ${key.publicKey} }`), `{ user: ${ADMIN.user}, password: ${ADMIN.password} }`].join(', ');
    writeFileSync(
      conf,
      `host: 127.0.0.1\nport: ${port}\nhttp: "127.0.0.1:${monitorPort}"\njetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }\n` +
        `accounts { OPENPAW: { jetstream: enabled, users: [ ${users} ] } }\n`,
    );
  };
  /** `nats-server --signal reload`: the same as the chart's config reloader does (SIGHUP). */
  const reload = (): void => {
    nats.child.kill('SIGHUP');
  };
  /** The nkeys the server shows the retrieval service's connections authenticated as (`/connz?auth=true`). */
  const retrievalKeys = async (): Promise<string[]> => {
    const connz = (await (await fetch(`${monitorUrl}/connz?auth=true`)).json()) as { connections?: { name?: string; authorized_user?: string }[] };
    return (connz.connections ?? []).filter((c) => c.name?.startsWith('retrieval') === true).map((c) => c.authorized_user ?? '');
  };

  const known = newNatsUserKey();
  const next = newNatsUserKey();
  let ports: { nats: number; monitor: number };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openpaw-nats-creds-'));
    conf = join(dir, 'nats.conf');
    // Ready by the server's own line, on ports picked again if another process took one first.
    ({ proc: nats } = await startConfiguredNatsServer(async (port) => {
      ports = { nats: port, monitor: await findFreePort() };
      configure([known], ports.nats, ports.monitor);
      return conf;
    }));
    natsUrl = `nats://127.0.0.1:${ports.nats}`;
    monitorUrl = `http://127.0.0.1:${ports.monitor}`;
    // The stream owner provisions first, as the migrations Job does; a service on its own user never touches the streams.
    const owner = await connectNats({ servers: natsUrl, name: 'provisioner', settings: ADMIN, connectOptions: { waitOnFirstConnect: false, reconnect: false } });
    await provisionStreams(await jetstreamManager(owner), { mode: 'reconcile' });
    await owner.close();
  });

  afterAll(async () => {
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('not ready naming OPENPAW_NATS_CREDS_FILE while the file holds an unknown key; ready once it is fixed in place, then rotated to a new key, never restarted', async () => {
    const databaseUrl = await freshDatabase('nats_creds_file');
    const migrate = spawnSync(process.execPath, [join(root, 'dist/tools/migrate.js')], { env: { ...process.env, OPENPAW_DATABASE_URL: databaseUrl }, encoding: 'utf8' });
    expect({ status: migrate.status, stderr: migrate.status === 0 ? '' : migrate.stderr }).toEqual({ status: 0, stderr: '' });
    const creds = join(dir, 'nats.creds');
    /** As the kubelet updates a Secret volume: the new file is written beside it and swapped in atomically. */
    const swapCreds = (key: Key): void => {
      writeFileSync(`${creds}.new`, natsCredsFileText(key.seed));
      renameSync(`${creds}.new`, creds);
    };
    swapCreds(newNatsUserKey());
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const service = spawnManaged(process.execPath, [join(root, 'dist/apps/retrieval/src/main.js')], {
      cwd: root,
      env: {
        ...process.env,
        OPENPAW_NATS_URL: natsUrl,
        OPENPAW_NATS_CREDS_FILE: creds,
        OPENPAW_STREAMS_PROVISION: 'off',
        OPENPAW_DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
    });
    const probe = async (path: string): Promise<{ status: number; body: Record<string, unknown> } | undefined> =>
      fetch(`${url}${path}`).then(
        async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
        () => undefined,
      );
    const readyBody = async (): Promise<Record<string, unknown> | undefined> => {
      const ready = await probe('/readyz');
      return ready?.status === 200 ? ready.body : undefined;
    };
    const alive = (): { exitCode: number | null; signal: NodeJS.Signals | null } => ({ exitCode: service.child.exitCode, signal: service.child.signalCode });
    try {
      const notReady = await waitFor(async () => ((await probe('/readyz'))?.body['status'] === 'not_ready' ? probe('/readyz') : undefined), 'retrieval to report not ready', 30_000);
      expect(notReady).toMatchObject({ status: 503, body: { service: 'retrieval', setting: 'OPENPAW_NATS_CREDS_FILE', detail: expect.stringContaining('Authorization Violation') } });
      expect(service.output()).toMatch(/retrieval not ready: OPENPAW_NATS_CREDS_FILE: the NATS server at \S+ refused the credentials/);
      expect((await probe('/healthz'))?.status).toBe(200);

      // The Secret is fixed: the same process picks the file up at its next check.
      swapCreds(known);
      expect(await waitFor(readyBody, 'retrieval ready once the creds file is fixed', 60_000)).toMatchObject({ status: 'ok', details: { nats: { status: 'up' } } });
      expect(alive()).toEqual({ exitCode: null, signal: null });
      expect(new Set(await retrievalKeys())).toEqual(new Set([known.publicKey]));

      // Rotation by overlap (runbook): both keys known, the file swapped, then the old key removed and the server reloaded.
      configure([known, next], ports.nats, ports.monitor);
      reload();
      swapCreds(next);
      configure([next], ports.nats, ports.monitor);
      await new Promise((resolve) => setTimeout(resolve, 500));
      reload();
      const keys = await waitFor(async () => {
        const now = await retrievalKeys();
        return now.length > 0 && now.every((key) => key === next.publicKey) ? now : undefined;
      }, "retrieval's connections on the new key only", 60_000);
      expect(keys.length).toBeGreaterThan(0);
      expect(await waitFor(readyBody, 'retrieval ready on the new key', 30_000)).toMatchObject({ status: 'ok', details: { nats: { status: 'up' } } });
      expect(alive()).toEqual({ exitCode: null, signal: null });
    } finally {
      await service.stop();
    }
  }, 240_000);
});
