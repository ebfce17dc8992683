import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, type ManagedProcess, spawnManaged, waitForPort } from '@openpaw/testing';
import { natsStartupCheck } from './startup-checks.js';

/** Runs openssl with these arguments in `dir`, failing the test with its output when it fails. */
function openssl(dir: string, args: readonly string[]): void {
  const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${run.stderr}`);
}

/** A CA (its key and certificate) in `dir`, named `<name>-ca.*`. */
function certificateAuthority(dir: string, name: string): string {
  openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', `/CN=${name} CA`, '-keyout', `${name}-ca.key`, '-out', `${name}-ca.pem`]);
  return join(dir, `${name}-ca.pem`);
}

/** A certificate for `cn` signed by `ca` (with 127.0.0.1 as its IP name), `<cn>.key`/`<cn>.pem` in `dir`. */
function signedCertificate(dir: string, ca: string, cn: string): { cert: string; key: string } {
  openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${cn}`, '-keyout', `${cn}.key`, '-out', `${cn}.csr`]);
  writeFileSync(join(dir, `${cn}.ext`), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n');
  openssl(dir, ['x509', '-req', '-in', `${cn}.csr`, '-CA', `${ca}-ca.pem`, '-CAkey', `${ca}-ca.key`, '-CAcreateserial', '-days', '1', '-extfile', `${cn}.ext`, '-out', `${cn}.pem`]);
  return { cert: join(dir, `${cn}.pem`), key: join(dir, `${cn}.key`) };
}

/**
 * TLS to NATS as a service setting (issue 27: "credentials … and TLS as service settings"; "a wrong
 * NATS credential: not ready naming the setting"): a real nats-server that requires TLS and a client
 * certificate from its CA. The startup check passes with the right files and names the TLS setting at
 * fault for each wrong one — not `OPENPAW_NATS_URL`, which would send ops to the wrong Secret.
 */
describe('startup checks: TLS to NATS (a real nats-server requiring client certificates)', () => {
  let dir: string;
  let nats: ManagedProcess;
  let natsUrl: string;
  let platform: { cert: string; key: string };
  let stranger: { cert: string; key: string };
  let caFile: string;
  let otherCaFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openpaw-nats-tls-'));
    caFile = certificateAuthority(dir, 'platform');
    otherCaFile = certificateAuthority(dir, 'other');
    const server = signedCertificate(dir, 'platform', 'nats-server');
    platform = signedCertificate(dir, 'platform', 'retrieval');
    stranger = signedCertificate(dir, 'other', 'stranger');
    const port = await findFreePort();
    const conf = join(dir, 'nats.conf');
    writeFileSync(conf, `host: 127.0.0.1\nport: ${port}\ntls { cert_file: ${JSON.stringify(server.cert)}, key_file: ${JSON.stringify(server.key)}, ca_file: ${JSON.stringify(caFile)}, verify: true, timeout: 2 }\n`);
    nats = spawnManaged(process.env['NATS_SERVER_BIN'] ?? 'nats-server', ['-c', conf]);
    await waitForPort('127.0.0.1', port, nats);
    natsUrl = `nats://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const check = (env: NodeJS.ProcessEnv) => natsStartupCheck('spec', () => ({ OPENPAW_NATS_URL: natsUrl, ...env }))();

  it('passes with the CA and a client certificate it signed', async () => {
    expect(await check({ OPENPAW_NATS_TLS_CA_FILE: caFile, OPENPAW_NATS_TLS_CERT_FILE: platform.cert, OPENPAW_NATS_TLS_KEY_FILE: platform.key })).toBeUndefined();
  });

  it('names OPENPAW_NATS_TLS_CA_FILE when the server certificate is not signed by the configured CA', async () => {
    expect(await check({ OPENPAW_NATS_TLS_CA_FILE: otherCaFile, OPENPAW_NATS_TLS_CERT_FILE: platform.cert, OPENPAW_NATS_TLS_KEY_FILE: platform.key })).toMatchObject({
      setting: 'OPENPAW_NATS_TLS_CA_FILE',
      detail: expect.stringContaining(natsUrl),
    });
  });

  it('names OPENPAW_NATS_TLS_CERT_FILE when the server refuses the client certificate, or none is given', async () => {
    expect(await check({ OPENPAW_NATS_TLS_CA_FILE: caFile, OPENPAW_NATS_TLS_CERT_FILE: stranger.cert, OPENPAW_NATS_TLS_KEY_FILE: stranger.key })).toMatchObject({
      setting: 'OPENPAW_NATS_TLS_CERT_FILE',
      detail: expect.stringContaining(natsUrl),
    });
    expect(await check({ OPENPAW_NATS_TLS_CA_FILE: caFile })).toMatchObject({ setting: 'OPENPAW_NATS_TLS_CERT_FILE', detail: expect.stringContaining(natsUrl) });
  });

  it('names the CA setting when none is set and the server requires TLS (its certificate checked against the system CAs)', async () => {
    expect(await check({})).toMatchObject({ setting: 'OPENPAW_NATS_TLS_CA_FILE', detail: expect.stringContaining('OPENPAW_NATS_TLS_CA_FILE is not set') });
  });

  it('names an unreadable TLS file by its setting', async () => {
    expect(await check({ OPENPAW_NATS_TLS_CA_FILE: join(dir, 'missing.pem'), OPENPAW_NATS_TLS_CERT_FILE: platform.cert, OPENPAW_NATS_TLS_KEY_FILE: platform.key })).toMatchObject({
      setting: 'OPENPAW_NATS_TLS_CA_FILE',
    });
  });
});
