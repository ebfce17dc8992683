import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/nats-core';
import { natsCredsFileText } from '@openpaw/testing';
import { natsAuthOptions, natsConnectionSettingsFromEnv } from './connection.js';


describe('NATS connection settings (credentials and TLS)', () => {
  it('none set: no auth and plain TCP', () => {
    expect(natsAuthOptions(natsConnectionSettingsFromEnv({}))).toEqual({});
  });

  it('user and password, and TLS with a client certificate', () => {
    const settings = natsConnectionSettingsFromEnv({
      OPENPAW_NATS_USER: 'openpaw',
      OPENPAW_NATS_PASSWORD: ' s3cret ',
      OPENPAW_NATS_TLS_CA_FILE: '/etc/nats/ca.pem',
      OPENPAW_NATS_TLS_CERT_FILE: '/etc/nats/tls.crt',
      OPENPAW_NATS_TLS_KEY_FILE: '/etc/nats/tls.key',
    });
    expect(natsAuthOptions(settings)).toEqual({ user: 'openpaw', pass: 's3cret', tls: { caFile: '/etc/nats/ca.pem', certFile: '/etc/nats/tls.crt', keyFile: '/etc/nats/tls.key' } });
  });

  it('names the setting when the values do not go together', () => {
    expect(() => natsConnectionSettingsFromEnv({ OPENPAW_NATS_USER: 'openpaw' })).toThrow('OPENPAW_NATS_USER and OPENPAW_NATS_PASSWORD go together');
    expect(() => natsConnectionSettingsFromEnv({ OPENPAW_NATS_USER: 'a', OPENPAW_NATS_PASSWORD: 'b', OPENPAW_NATS_CREDS_FILE: '/x.creds' })).toThrow('set OPENPAW_NATS_CREDS_FILE or');
    expect(() => natsConnectionSettingsFromEnv({ OPENPAW_NATS_TLS_CERT_FILE: '/c' })).toThrow('OPENPAW_NATS_TLS_CERT_FILE and OPENPAW_NATS_TLS_KEY_FILE go together');
  });

  it('a creds file becomes an authenticator; an unreadable one names the setting', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpaw-creds-'));
    try {
      const path = join(dir, 'user.creds');
      writeFileSync(path, '-----BEGIN NATS USER JWT-----\neyJ0\n------END NATS USER JWT------\n');
      expect(typeof natsAuthOptions({ credsFile: path }).authenticator).toBe('function');
      expect(() => natsAuthOptions({ credsFile: join(dir, 'missing.creds') })).toThrow(/OPENPAW_NATS_CREDS_FILE .*missing\.creds cannot be read \(ENOENT\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the creds file again at each connect: rotated credentials are used without a restart, a missing file keeps the last', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openpaw-creds-'));
    try {
      const path = join(dir, 'user.creds');
      const [first, second] = [nkeys.createUser(), nkeys.createUser()];
      writeFileSync(path, natsCredsFileText(first.getSeed(), 'jwt-one'));
      const authenticate = natsAuthOptions({ credsFile: path }).authenticator;
      if (typeof authenticate !== 'function') throw new Error('expected one authenticator');
      expect(authenticate('nonce')).toMatchObject({ jwt: 'jwt-one', nkey: first.getPublicKey() });
      writeFileSync(path, natsCredsFileText(second.getSeed(), 'jwt-two'));
      expect(authenticate('nonce')).toMatchObject({ jwt: 'jwt-two', nkey: second.getPublicKey() });
      rmSync(path);
      expect(authenticate('nonce')).toMatchObject({ jwt: 'jwt-two', nkey: second.getPublicKey() });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
