import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ManagedProcess, startConfiguredNatsServer, testCertificateAuthority } from '@openpaw/testing';
import { natsStartupCheck } from './startup-checks.js';

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
    const platformCa = testCertificateAuthority(dir, 'platform');
    const otherCa = testCertificateAuthority(dir, 'other');
    caFile = platformCa.caFile;
    otherCaFile = otherCa.caFile;
    const issued = platformCa.issue('nats-server');
    const server = { cert: issued.certFile, key: issued.keyFile };
    const client = platformCa.issue('retrieval');
    platform = { cert: client.certFile, key: client.keyFile };
    const foreign = otherCa.issue('stranger');
    stranger = { cert: foreign.certFile, key: foreign.keyFile };
    const conf = join(dir, 'nats.conf');
    // Ready on its own "Server is ready" line, on another port if one was taken meanwhile (libs/testing).
    const started = await startConfiguredNatsServer((port) => {
      writeFileSync(conf, `host: 127.0.0.1\nport: ${port}\ntls { cert_file: ${JSON.stringify(server.cert)}, key_file: ${JSON.stringify(server.key)}, ca_file: ${JSON.stringify(caFile)}, verify: true, timeout: 2 }\n`);
      return conf;
    });
    nats = started.proc;
    natsUrl = `nats://127.0.0.1:${started.port}`;
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
