import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { InMemoryUserKeyStore } from './user-key-store.js';
import { UserKeyDecryptionError, UserKeyVault } from './user-key-vault.js';

const SECRET = 'sk-live-user-key-0123456789abcdef';

describe('UserKeyVault', () => {
  it('stores only ciphertext and gives the key back to its owner', async () => {
    const store = new InMemoryUserKeyStore();
    const vault = new UserKeyVault(randomBytes(32), store);
    await vault.put('user-1', 'openai', SECRET);
    await vault.put('user-1', 'gemini', 'AIza-user-gemini-key-000000');

    const stored = await store.load('user-1', 'openai');
    expect(stored?.ciphertext).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/);
    expect(JSON.stringify(await store.list('user-1'))).not.toContain(SECRET);
    expect(await vault.get('user-1', 'openai')).toBe(SECRET);
    expect(await vault.credentialsFor('user-1')).toEqual({ openai: SECRET, gemini: 'AIza-user-gemini-key-000000' });
    expect(await vault.providers('user-1')).toEqual(['gemini', 'openai']);
    expect(await vault.get('user-2', 'openai')).toBeUndefined();
  });

  it('hands out a key sealed, for a command, and opens it only for its user and provider', async () => {
    const store = new InMemoryUserKeyStore();
    const vault = new UserKeyVault(randomBytes(32), store);
    await vault.put('user-1', 'anthropic', SECRET);
    const sealed = await vault.sealed('user-1', 'anthropic');
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain(SECRET);
    expect(vault.open('user-1', 'anthropic', sealed!)).toBe(SECRET);
    expect(() => vault.open('user-2', 'anthropic', sealed!)).toThrow(UserKeyDecryptionError);
    expect(() => vault.open('user-1', 'openai', sealed!)).toThrow(UserKeyDecryptionError);
    expect(await vault.sealed('user-1', 'openai')).toBeUndefined();
  });

  it('encrypts the same key differently each time (fresh IV)', async () => {
    const store = new InMemoryUserKeyStore();
    const vault = new UserKeyVault(randomBytes(32), store);
    await vault.put('u', 'openai', SECRET);
    const first = (await store.load('u', 'openai'))!.ciphertext;
    await vault.put('u', 'openai', SECRET);
    expect((await store.load('u', 'openai'))!.ciphertext).not.toBe(first);
  });

  it('refuses a ciphertext moved to another user, tampered with, or under another key, without revealing it', async () => {
    const store = new InMemoryUserKeyStore();
    const key = randomBytes(32);
    const vault = new UserKeyVault(key, store);
    await vault.put('alice', 'anthropic', SECRET);
    const row = (await store.load('alice', 'anthropic'))!;

    await store.save({ ...row, userId: 'mallory' });
    const moved = await vault.get('mallory', 'anthropic').catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(UserKeyDecryptionError);
    expect(String((moved as Error).message)).not.toContain(SECRET);

    const parts = row.ciphertext.split(':');
    const flipped = Buffer.from(parts[3]!, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    await store.save({ ...row, ciphertext: [parts[0], parts[1], parts[2], flipped.toString('base64')].join(':') });
    await expect(vault.get('alice', 'anthropic')).rejects.toBeInstanceOf(UserKeyDecryptionError);

    await store.save(row);
    await expect(new UserKeyVault(randomBytes(32), store).get('alice', 'anthropic')).rejects.toBeInstanceOf(UserKeyDecryptionError);
    await expect(vault.get('alice', 'anthropic')).resolves.toBe(SECRET);
  });

  it('reads its key from OPENPAW_KEY_ENCRYPTION_KEY and rejects a bad one', async () => {
    const store = new InMemoryUserKeyStore();
    const key = randomBytes(32).toString('base64');
    const vault = UserKeyVault.fromEnv({ OPENPAW_KEY_ENCRYPTION_KEY: key }, store, 'seal');
    await vault.put('u', 'openai', SECRET);
    expect(await UserKeyVault.fromEnv({ OPENPAW_KEY_ENCRYPTION_KEY: key }, store, 'open').get('u', 'openai')).toBe(SECRET);
    expect(() => UserKeyVault.fromEnv({}, store, 'seal')).toThrow(/neither OPENPAW_KEY_SEALING_PUBLIC_KEY nor OPENPAW_KEY_ENCRYPTION_KEY is set/);
    expect(() => UserKeyVault.fromEnv({}, store, 'open')).toThrow(/neither OPENPAW_KEY_SEALING_PRIVATE_KEY nor OPENPAW_KEY_ENCRYPTION_KEY is set/);
    expect(() => UserKeyVault.fromEnv({ OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(16).toString('base64') }, store, 'seal')).toThrow(/32 bytes/);
  });

  it('with the key pair, the sealing vault (the gateway) cannot open what it stored; the opening one (research) can', async () => {
    const store = new InMemoryUserKeyStore();
    const pair = generateKeyPairSync('x25519');
    const gateway = UserKeyVault.fromEnv({ OPENPAW_KEY_SEALING_PUBLIC_KEY: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64') }, store, 'seal');
    await gateway.put('u', 'anthropic', SECRET);
    const sealed = (await gateway.sealed('u', 'anthropic'))!;
    expect(Buffer.from(sealed.split(':')[1]!, 'base64')).toHaveLength(44);
    await expect(gateway.get('u', 'anthropic')).rejects.toBeInstanceOf(UserKeyDecryptionError);
    // A rotation by the gateway still stores the new key (it has nothing to forget).
    await gateway.put('u', 'anthropic', `${SECRET}-rotated`);

    const research = UserKeyVault.fromEnv({ OPENPAW_KEY_SEALING_PRIVATE_KEY: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }, new InMemoryUserKeyStore(), 'open');
    expect(research.open('u', 'anthropic', sealed)).toBe(SECRET);
    expect(research.open('u', 'anthropic', (await gateway.sealed('u', 'anthropic'))!)).toBe(`${SECRET}-rotated`);
    expect(() => research.open('v', 'anthropic', sealed)).toThrow(UserKeyDecryptionError);
    await expect(research.put('u', 'openai', SECRET)).rejects.toThrow(/cannot seal/);
  });

  it('does not show its encryption key when inspected or serialised', () => {
    const key = randomBytes(32);
    const vault = new UserKeyVault(key, new InMemoryUserKeyStore());
    const shown = inspect(vault, { depth: 5, showHidden: true });
    expect(shown).not.toMatch(/<Buffer/);
    expect(shown).not.toContain([...key.subarray(0, 6)].map((b) => b.toString(16).padStart(2, '0')).join(' '));
    expect(JSON.stringify({ vault })).toBe('{"vault":"UserKeyVault"}');
  });
});
