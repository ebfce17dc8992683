import { randomBytes } from 'node:crypto';
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
    expect(() => sealer.open('research-webhook', 'user-1', 'garbage')).toThrow('not a sealed');
  });
});
