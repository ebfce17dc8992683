import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { SecretSealer } from './secret-sealer.js';

describe('SecretSealer', () => {
  const sealer = new SecretSealer(randomBytes(32));

  it('opens what it sealed for the same purpose and owner', () => {
    const sealed = sealer.seal('research-webhook', 'user-1', 'whsec_abc');
    expect(sealed).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(sealer.open('research-webhook', 'user-1', sealed)).toBe('whsec_abc');
  });

  it('refuses a sealed secret moved to another owner or purpose, or sealed under another key', () => {
    const sealed = sealer.seal('research-webhook', 'user-1', 'whsec_abc');
    expect(() => sealer.open('research-webhook', 'user-2', sealed)).toThrow('cannot be opened');
    expect(() => sealer.open('other', 'user-1', sealed)).toThrow('cannot be opened');
    expect(() => new SecretSealer(randomBytes(32)).open('research-webhook', 'user-1', sealed)).toThrow('cannot be opened');
    expect(() => sealer.open('research-webhook', 'user-1', 'garbage')).toThrow('cannot be opened');
  });

  it("with the key pair, the gateway's sealer cannot open; research's opens", () => {
    const pair = generateKeyPairSync('x25519');
    const gateway = SecretSealer.fromEnv({ OPENPAW_KEY_SEALING_PUBLIC_KEY: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') }, 'seal');
    const sealed = gateway.seal('research-webhook', 'user-1', 'whsec_abc');
    expect(Buffer.from(sealed.split(':')[1]!, 'base64')).toHaveLength(44);
    expect(() => gateway.open('research-webhook', 'user-1', sealed)).toThrow('cannot open');
    const research = SecretSealer.fromEnv({ OPENPAW_KEY_SEALING_PRIVATE_KEY: pair.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64') }, 'open');
    expect(research.open('research-webhook', 'user-1', sealed)).toBe('whsec_abc');
    expect(() => research.seal('research-webhook', 'user-1', 'x')).toThrow('cannot seal');
  });
});
