import { OpenPawError } from '@openpaw/contracts';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type Env, envValue } from '../shared/env.js';
import type { ProviderCredentials } from '../llm/port.js';
import { forgetApiKey } from '../llm/sdk-clients.js';
import { KEY_PROVIDERS, type KeyProvider, type StoredUserKey, type UserKeyStore } from './user-key-store.js';

export const KEY_ENCRYPTION_KEY_ENV = 'OPENPAW_KEY_ENCRYPTION_KEY';

/** A stored key could not be decrypted (wrong encryption key, tampering, or a row moved to another user). */
export class UserKeyDecryptionError extends OpenPawError {
  readonly code = 'user_key_undecryptable';
  override readonly name = 'UserKeyDecryptionError';
  constructor(
    readonly userId: string,
    readonly provider: KeyProvider,
  ) {
    super(`the stored ${provider} key of user ${userId} cannot be decrypted`);
  }
}

/**
 * Per-user API keys, encrypted at rest with AES-256-GCM under a key from env
 * (`OPENPAW_KEY_ENCRYPTION_KEY`, base64 of 32 bytes). Each ciphertext has a fresh 96-bit IV and is
 * bound to its user and provider as associated data. Plaintext keys are only ever returned to the
 * caller; nothing here logs, and no error message contains one.
 */
export class UserKeyVault {
  readonly #key: Buffer;

  constructor(
    encryptionKey: Uint8Array,
    private readonly store: UserKeyStore,
    private readonly now: () => Date = () => new Date(),
  ) {
    if (encryptionKey.length !== 32) throw new Error(`the key encryption key must be 32 bytes, got ${encryptionKey.length}`);
    this.#key = Buffer.from(encryptionKey);
  }

  /** Reads `OPENPAW_KEY_ENCRYPTION_KEY`; throws with a clear message when it is missing or not 32 bytes of base64. */
  static fromEnv(env: Env, store: UserKeyStore): UserKeyVault {
    const raw = envValue(env, KEY_ENCRYPTION_KEY_ENV);
    if (raw === undefined) {
      throw new Error(`${KEY_ENCRYPTION_KEY_ENV} is not set; generate one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`);
    }
    const key = Buffer.from(raw, 'base64');
    if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== raw.replace(/=+$/, '')) {
      throw new Error(`${KEY_ENCRYPTION_KEY_ENV} must be base64 of exactly 32 bytes`);
    }
    return new UserKeyVault(key, store);
  }

  async put(userId: string, provider: KeyProvider, apiKey: string): Promise<void> {
    assertProvider(provider);
    if (apiKey.trim() === '') throw new Error('an API key must not be empty');
    const previous = await this.readable(userId, provider);
    await this.store.save({ userId, provider, ciphertext: this.encrypt(userId, provider, apiKey), updatedAt: this.now().toISOString() });
    // A rotated key's SDK clients (which hold it) leave this process's caches now.
    if (previous !== undefined && previous !== apiKey) forgetApiKey(previous);
  }

  async get(userId: string, provider: KeyProvider): Promise<string | undefined> {
    assertProvider(provider);
    const record = await this.store.load(userId, provider);
    return record === undefined ? undefined : this.decrypt(record);
  }

  /**
   * The stored ciphertext of a key (`v1:...`, bound to the user and provider), not decrypted: what a
   * command carries so that only the service that calls the provider ever opens it.
   */
  async sealed(userId: string, provider: KeyProvider): Promise<string | undefined> {
    assertProvider(provider);
    return (await this.store.load(userId, provider))?.ciphertext;
  }

  /** Opens a sealed key of `userId`'s `provider` (see `sealed`); throws `UserKeyDecryptionError` if it is not theirs or was tampered with. */
  open(userId: string, provider: KeyProvider, ciphertext: string): string {
    assertProvider(provider);
    return this.decrypt({ userId, provider, ciphertext, updatedAt: '' });
  }

  /** Every key of the user, ready to pass as `ChatOptions.credentials`. */
  async credentialsFor(userId: string): Promise<ProviderCredentials> {
    const out: { openai?: string; anthropic?: string; gemini?: string } = {};
    for (const record of await this.store.list(userId)) out[record.provider] = this.decrypt(record);
    return out;
  }

  /** Which providers the user has a key for (no decryption). */
  async providers(userId: string): Promise<KeyProvider[]> {
    return (await this.store.list(userId)).map((r) => r.provider).sort();
  }

  async delete(userId: string, provider: KeyProvider): Promise<boolean> {
    const previous = await this.readable(userId, provider);
    const deleted = await this.store.delete(userId, provider);
    if (previous !== undefined) forgetApiKey(previous);
    return deleted;
  }

  /** The stored key, or undefined when there is none or it cannot be decrypted (nothing to forget then). */
  private async readable(userId: string, provider: KeyProvider): Promise<string | undefined> {
    try {
      return await this.get(userId, provider);
    } catch (error) {
      if (error instanceof UserKeyDecryptionError) return undefined;
      throw error;
    }
  }

  private encrypt(userId: string, provider: KeyProvider, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(associatedData(userId, provider));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  private decrypt(record: StoredUserKey): string {
    const [version, iv, tag, data] = record.ciphertext.split(':');
    if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new UserKeyDecryptionError(record.userId, record.provider);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64'));
      decipher.setAAD(associatedData(record.userId, record.provider));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new UserKeyDecryptionError(record.userId, record.provider);
    }
  }

  /** Keeps the key out of `console.log` / util.inspect output. */
  toJSON(): string {
    return 'UserKeyVault';
  }
}

function associatedData(userId: string, provider: KeyProvider): Buffer {
  return Buffer.from(`openpaw-user-key\u0000${userId}\u0000${provider}`, 'utf8');
}

function assertProvider(provider: string): asserts provider is KeyProvider {
  if (!KEY_PROVIDERS.includes(provider as KeyProvider)) throw new Error(`unknown key provider "${provider}"`);
}
