import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectNats, NATS_SETTING_NAMES, provisionStreams } from '@openpaw/messaging';
import { findFreePort, type ManagedProcess, spawnManaged, startConfiguredNatsServer, testCertificateAuthority, waitFor } from '@openpaw/testing';
import { NATS_CLIENT_TLS_DIR, NATS_TLS_KEYS, natsChartTlsValues, natsConfBlock, natsServerTlsBlock } from './nats-tls.js';
import { renderPlatform } from './render.js';
import { DEFAULT_SETTINGS } from './settings.js';
import { podContainers } from './testing/pod-containers.js';

const root = join(import.meta.dirname, '../..');
const SERVICE = 'visual-search';

/** The first line a server sends on a plain TCP connection, what it answers a plain CONNECT + PING with, and whether it hung up (within 5 s). */
async function plainTcpExchange(port: number): Promise<{ info: string; reply: string; hungUp: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1');
    let received = '';
    let info: string | undefined;
    const timer = setTimeout(() => finish(false), 5_000);
    const finish = (hungUp: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ info: info ?? received, reply: info === undefined ? '' : received, hungUp });
    };
    socket.on('error', reject);
    socket.on('close', () => finish(true));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (info === undefined && received.includes('\r\n')) {
        info = received.slice(0, received.indexOf('\r\n'));
        received = '';
        socket.write('CONNECT {"verbose":false}\r\nPING\r\n');
      }
    });
  });
}

/**
 * TLS to NATS end to end (issue 27): nats-server 2.9.10 with the `tls` block the NATS chart values
 * render (deploy/nats/values.yaml, `natsServerTlsBlock`), its Secret's files from a CA made with
 * openssl; a service from `dist/` with the three TLS settings its Deployment declares (the client
 * Secret's directory mapped to this test's copy: the only substitution). The server refuses plain
 * TCP; the service connects over TLS with its certificate and is ready.
 */
describe('TLS to NATS as the manifests configure it, on a real nats-server', () => {
  let dir: string;
  let nats: ManagedProcess;
  let port: number;
  let monitorUrl: string;
  let clientDir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openpaw-nats-tls-manifests-'));
    const ca = testCertificateAuthority(dir, 'platform');
    /** A Secret's files, as the kubelet writes its volume. */
    const secretDir = (name: string, issued: { cert: string; key: string }): string => {
      const at = join(dir, name);
      mkdirSync(at);
      writeFileSync(join(at, NATS_TLS_KEYS.ca), ca.ca);
      writeFileSync(join(at, NATS_TLS_KEYS.cert), issued.cert);
      writeFileSync(join(at, NATS_TLS_KEYS.key), issued.key);
      return at;
    };
    const serverDir = secretDir('server-secret', ca.issue('nats', [new URL(DEFAULT_SETTINGS.natsUrl).hostname]));
    clientDir = secretDir('client-secret', ca.issue('openpaw-client'));
    const tls = natsChartTlsValues();
    const monitorPort = await findFreePort();
    const conf = join(dir, 'nats.conf');
    ({ proc: nats, port } = await startConfiguredNatsServer((free) => {
      const lines = [`host: 127.0.0.1`, `port: ${free}`, `http: "127.0.0.1:${monitorPort}"`, `jetstream { store_dir: ${JSON.stringify(join(dir, 'js'))} }`, natsConfBlock('tls', natsServerTlsBlock(tls, serverDir))];
      writeFileSync(conf, lines.join('\n'));
      return conf;
    }));
    monitorUrl = `http://127.0.0.1:${monitorPort}`;
  }, 60_000);

  afterAll(async () => {
    await nats?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('announces TLS and client certificates as required, and hangs up on a plain-TCP CONNECT without a PONG', async () => {
    const { info, reply, hungUp } = await plainTcpExchange(port);
    expect(info).toMatch(/^INFO /);
    expect(JSON.parse(info.slice('INFO '.length)) as Record<string, unknown>).toMatchObject({ tls_required: true, tls_verify: true });
    // The plain CONNECT is read as a broken TLS handshake: no PONG, the connection closed, the handshake error logged.
    expect({ reply, hungUp }).toEqual({ reply: '', hungUp: true });
    expect(await waitFor(() => Promise.resolve(/TLS handshake error/.test(nats.output()) ? true : undefined), 'the server to log the refused handshake', 5_000)).toBe(true);
  });

  it("a service from dist/, with its Deployment's TLS settings, connects over TLS with its client certificate and is ready", async () => {
    const env = podContainers(renderPlatform(DEFAULT_SETTINGS).platform, new Proxy({}, { get: () => new Proxy({}, { get: () => '' }) })).find((c) => c.workload === SERVICE && !c.init)?.env ?? {};
    const tlsEnv = Object.fromEntries(
      [NATS_SETTING_NAMES.tlsCaFile, NATS_SETTING_NAMES.tlsCertFile, NATS_SETTING_NAMES.tlsKeyFile].map((name) => [name, (env[name] ?? '').replace(NATS_CLIENT_TLS_DIR, clientDir)]),
    );
    expect(Object.values(tlsEnv).every((path) => path.startsWith(`${clientDir}/`))).toBe(true);
    const natsUrl = `nats://127.0.0.1:${port}`;
    // The stream owner first, as the migrations Job does (over TLS too).
    const owner = await connectNats({
      servers: natsUrl,
      name: 'provisioner',
      settings: { tlsCaFile: tlsEnv[NATS_SETTING_NAMES.tlsCaFile], tlsCertFile: tlsEnv[NATS_SETTING_NAMES.tlsCertFile], tlsKeyFile: tlsEnv[NATS_SETTING_NAMES.tlsKeyFile] },
      connectOptions: { waitOnFirstConnect: false, reconnect: false },
    });
    await provisionStreams(await jetstreamManager(owner), { mode: 'reconcile' });
    await owner.close();
    const servicePort = await findFreePort();
    const service = spawnManaged(process.execPath, [join(root, `dist/apps/${SERVICE}/src/main.js`)], {
      cwd: root,
      env: { ...process.env, ...tlsEnv, OPENPAW_NATS_URL: natsUrl, OPENPAW_STREAMS_PROVISION: 'off', OPENPAW_BLOB_DIR: join(dir, 'blobs'), PORT: String(servicePort), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    });
    try {
      const readyBody = async (): Promise<Record<string, unknown> | undefined> => {
        const response = await fetch(`http://127.0.0.1:${servicePort}/readyz`).catch(() => undefined);
        return response?.status === 200 ? ((await response.json()) as Record<string, unknown>) : undefined;
      };
      const ready = await waitFor(
        readyBody,
        `${SERVICE} ready over TLS`,
        60_000,
      );
      expect(ready).toMatchObject({ status: 'ok', details: { nats: { status: 'up' } } });
      const connz = (await (await fetch(`${monitorUrl}/connz`)).json()) as { connections?: { name?: string; tls_version?: string }[] };
      const own = (connz.connections ?? []).filter((c) => c.name?.startsWith(SERVICE) === true);
      expect(own.length).toBeGreaterThan(0);
      expect(own.filter((c) => !/^1\.[23]$/.test(c.tls_version ?? 'plain')).map((c) => `${c.name ?? ''}: ${c.tls_version ?? 'plain'}`)).toEqual([]);
    } finally {
      await service.stop();
    }
  }, 120_000);
});
