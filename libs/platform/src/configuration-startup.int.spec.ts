import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, type ManagedProcess, spawnManaged, waitFor } from '@openpaw/testing';

const root = join(import.meta.dirname, '../../..');
/** A JWT secret below the gateway's 32-character minimum: present in the Secret, malformed. */
const SHORT_JWT_SECRET = 'short-jwt-secret-value';
const DATABASE_PASSWORD = 'the-database-password';

interface Probe {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function probe(url: string, path: string): Promise<Probe | undefined> {
  return fetch(`${url}${path}`).then(
    async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
    () => undefined,
  );
}

/**
 * A Secret key missing or a setting malformed (issue 27, "Bad input and faults"): the service from
 * `dist/`, started as its Deployment starts it, stays alive (`/healthz` 200, no exit, so no restart
 * loop) and not ready (`/readyz` 503 naming the variable, never a secret's value), serves nothing
 * else, and says why once. No NATS or PostgreSQL is running: the settings are checked first.
 */
describe('startup: invalid settings keep a service alive and not ready', () => {
  const started: ManagedProcess[] = [];

  afterAll(async () => {
    await Promise.all(started.map((service) => service.stop()));
  });

  async function start(main: string, env: NodeJS.ProcessEnv): Promise<{ service: ManagedProcess; url: string }> {
    const port = await findFreePort();
    const natsPort = await findFreePort();
    const service = spawnManaged(process.execPath, [join(root, main)], {
      cwd: root,
      env: {
        ...process.env,
        OPENPAW_NATS_URL: `nats://127.0.0.1:${natsPort}`,
        OPENPAW_DATABASE_URL: `postgres://openpaw:${DATABASE_PASSWORD}@127.0.0.1:1/openpaw`,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ...env,
      },
    });
    started.push(service);
    return { service, url: `http://127.0.0.1:${port}` };
  }

  function notReady(url: string, what: string): Promise<Probe> {
    return waitFor(async () => {
      const answer = await probe(url, '/readyz');
      return answer?.body['status'] === 'not_ready' ? answer : undefined;
    }, what, 30_000);
  }

  it('names the gateway auth setting when the Secret lacks its key, and when its value is malformed, without the value', async () => {
    const withoutKey = { OPENPAW_JWT_SECRET: undefined, OPENPAW_JWKS_URL: undefined, OPENPAW_OIDC_ISSUER: undefined };
    const [missing, malformed] = await Promise.all([
      start('dist/apps/gateway/src/main.js', withoutKey),
      start('dist/apps/gateway/src/main.js', { ...withoutKey, OPENPAW_JWT_SECRET: SHORT_JWT_SECRET }),
    ]);
    expect(await notReady(missing.url, 'gateway without an auth key to report not ready')).toEqual({
      status: 503,
      body: expect.objectContaining({
        service: 'gateway',
        setting: 'OPENPAW_JWT_SECRET, OPENPAW_JWKS_URL, OPENPAW_OIDC_ISSUER',
        detail: expect.stringContaining('set OPENPAW_JWT_SECRET (HS256, development) or OPENPAW_JWKS_URL / OPENPAW_OIDC_ISSUER'),
      }),
    });
    expect(await notReady(malformed.url, 'gateway with a short JWT secret to report not ready')).toEqual({
      status: 503,
      body: expect.objectContaining({ setting: 'OPENPAW_JWT_SECRET', detail: expect.stringContaining('OPENPAW_JWT_SECRET must be at least 32 characters') }),
    });

    // Several checks later (every 2 s): still alive, still not ready, nothing else served, said once.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    for (const { service, url } of [missing, malformed]) {
      expect({ exitCode: service.child.exitCode, signal: service.child.signalCode }).toEqual({ exitCode: null, signal: null });
      expect((await probe(url, '/healthz'))?.status).toBe(200);
      expect((await probe(url, '/readyz'))?.status).toBe(503);
      expect((await probe(url, '/runs'))?.status).toBe(503);
      expect(service.output().match(/gateway not ready: OPENPAW_JWT_SECRET/g)).toHaveLength(1);
      expect(service.output()).not.toContain('failed to start');
    }
    expect(malformed.service.output()).not.toContain(SHORT_JWT_SECRET);
    expect(JSON.stringify(await probe(malformed.url, '/readyz'))).not.toContain(SHORT_JWT_SECRET);
  }, 60_000);

  it('names a malformed number setting of a worker service, and never shows the database password', async () => {
    const { service, url } = await start('dist/apps/retrieval/src/main.js', { OPENPAW_RETRIEVAL_POOL_SIZE: 'plenty' });
    const answer = await notReady(url, 'retrieval with a malformed pool size to report not ready');
    expect(answer).toEqual({
      status: 503,
      body: expect.objectContaining({ service: 'retrieval', setting: 'OPENPAW_RETRIEVAL_POOL_SIZE', detail: expect.stringMatching(/^invalid retrieval configuration: OPENPAW_RETRIEVAL_POOL_SIZE: /) }),
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect({ exitCode: service.child.exitCode, signal: service.child.signalCode }).toEqual({ exitCode: null, signal: null });
    expect(service.output().match(/retrieval not ready: OPENPAW_RETRIEVAL_POOL_SIZE/g)).toHaveLength(1);
    expect(service.output()).not.toContain(DATABASE_PASSWORD);
  }, 60_000);

  it('names a bad provider setting (the LLM provider choice) instead of exiting while the app builds', async () => {
    const apiKey = 'sk-provider-key-value';
    const { service, url } = await start('dist/apps/solve/src/main.js', { OPENPAW_LLM_MODEL: 'mistral/large', OPENAI_API_KEY: apiKey });
    expect(await notReady(url, 'solve with an unknown LLM provider to report not ready')).toEqual({
      status: 503,
      body: expect.objectContaining({
        service: 'solve',
        setting: 'OPENPAW_LLM_MODEL',
        detail: 'invalid provider settings: OPENPAW_LLM_MODEL: unknown provider "mistral" in "mistral/large" (known: openai, anthropic, gemini, local)',
      }),
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect({ exitCode: service.child.exitCode, signal: service.child.signalCode }).toEqual({ exitCode: null, signal: null });
    expect((await probe(url, '/healthz'))?.status).toBe(200);
    expect(service.output().match(/solve not ready: OPENPAW_LLM_MODEL/g)).toHaveLength(1);
    expect(service.output()).not.toContain('failed to start');
    expect(service.output()).not.toContain(apiKey);
  }, 60_000);

  it('names a blob directory that cannot be written, and moves on without a restart once the volume is there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openpaw-blob-volume-'));
    try {
      // A file where the volume should be mounted: the directory cannot be created under it.
      const volume = join(dir, 'volume');
      await writeFile(volume, 'not a directory');
      const { service, url } = await start('dist/apps/assets/src/main.js', { OPENPAW_BLOB_DIR: join(volume, 'blobs'), OPENPAW_GCS_BUCKET: undefined });
      expect(await notReady(url, 'assets with an unwritable blob directory to report not ready')).toEqual({
        status: 503,
        body: expect.objectContaining({ service: 'assets', setting: 'OPENPAW_BLOB_DIR, OPENPAW_GCS_BUCKET', detail: expect.stringContaining('(ENOTDIR); OPENPAW_BLOB_DIR must name a writable volume') }),
      });
      // The volume arrives (a directory now): the next check passes it and waits on NATS, which is not running here.
      await rm(volume);
      await mkdir(volume);
      const next = await waitFor(async () => {
        const answer = await probe(url, '/readyz');
        return answer?.body['setting'] === 'OPENPAW_NATS_URL' ? answer : undefined;
      }, 'assets to move on to its NATS check once the blob directory is writable', 30_000);
      expect(next.status).toBe(503);
      expect({ exitCode: service.child.exitCode, signal: service.child.signalCode }).toEqual({ exitCode: null, signal: null });
      expect(service.output()).toContain('assets not ready: OPENPAW_BLOB_DIR');
      expect(service.output()).not.toContain('failed to start');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('still exits at once on a PORT that is not a port: nothing could answer the probes', async () => {
    const service = spawnManaged(process.execPath, [join(root, 'dist/apps/retrieval/src/main.js')], { cwd: root, env: { ...process.env, PORT: 'eighty' } });
    started.push(service);
    const exitCode = await waitFor(() => Promise.resolve(service.child.exitCode ?? undefined), 'retrieval to exit on a bad PORT', 30_000);
    expect(exitCode).toBe(1);
    expect(service.output()).toContain('PORT must be a port number');
  }, 60_000);
});
