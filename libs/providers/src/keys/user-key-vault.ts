import { OpenPawError } from '@openpaw/contracts';
import type { Env } from '../shared/env.js';
import type { ProviderCredentials } from '../llm/port.js';
import { forgetApiKey } from '../llm/sdk-clients.js';
import { type Opener, type Sealer, type SealingKeys, sealingKeysFromEnv, sealingKeysOf } from './sealing.js';
import { KEY_PROVIDERS, type KeyProvider, type StoredUserKey, type UserKeyStore } from './user-key-store.js';

export { KEY_ENCRYPTION_KEY_ENV } from './sealing.js';

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

/** What a vault seals and opens with; a process holds only the half it needs (see `sealing.ts`). */
export type VaultKeys = SealingKeys;

/**
 * Per-user API keys, sealed at rest (`sealing.ts`: to the research service's public key, or under
 * the symmetric key in a development setup), each bound to its user and provider as associated data.
 * The gateway's vault can seal and never open; the research service's opens. Plaintext keys are only
 * ever returned to the caller; nothing here logs, and no error message contains one.
 */
export class UserKeyVault {
  readonly #sealer: Sealer | undefined;
  readonly #opener: Opener | undefined;

  /** `keys`: a 32-byte symmetric key (seals and opens `v1`), or a sealer and/or an opener. */
  constructor(
    keys: Uint8Array | VaultKeys,
    private readonly store: UserKeyStore,
    private readonly now: () => Date = () => new Date(),
  ) {
    ({ sealer: this.#sealer, opener: this.#opener } = sealingKeysOf(keys));
  }

  /**
   * The vault a process needs from its environment: `seal` (the gateway: `OPENPAW_KEY_SEALING_PUBLIC_KEY`,
   * or `OPENPAW_KEY_ENCRYPTION_KEY`) or `open` (research: `OPENPAW_KEY_SEALING_PRIVATE_KEY` and/or the
   * symmetric key for older `v1` keys). Throws with a clear message naming the settings.
   */
  static fromEnv(env: Env, store: UserKeyStore, need: 'seal' | 'open'): UserKeyVault {
    return new UserKeyVault(sealingKeysFromEnv(env, need), store);
  }

  async put(userId: string, provider: KeyProvider, apiKey: string): Promise<void> {
    assertProvider(provider);
    if (apiKey.trim() === '') throw new Error('an API key must not be empty');
    if (this.#sealer === undefined) throw new Error('this vault cannot seal keys (it was built to open them)');
    const previous = await this.readable(userId, provider);
    await this.store.save({ userId, provider, ciphertext: this.#sealer.seal(associatedData(userId, provider), apiKey), updatedAt: this.now().toISOString() });
    // A rotated key's SDK clients (which hold it) leave this process's caches now.
    if (previous !== undefined && previous !== apiKey) forgetApiKey(previous);
  }

  async get(userId: string, provider: KeyProvider): Promise<string | undefined> {
    assertProvider(provider);
    const record = await this.store.load(userId, provider);
    return record === undefined ? undefined : this.decrypt(record);
  }

  /**
   * The stored ciphertext of a key (`v1:<nonce>:<tag>:<data>`, bound to the user and provider), not decrypted: what a
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

  /**
   * The stored key, or undefined when there is none, it cannot be decrypted, or this vault cannot open
   * keys (the gateway's: it holds no SDK clients to forget) — nothing to forget then.
   */
  private async readable(userId: string, provider: KeyProvider): Promise<string | undefined> {
    if (this.#opener === undefined) return undefined;
    try {
      return await this.get(userId, provider);
    } catch (error) {
      if (error instanceof UserKeyDecryptionError) return undefined;
      throw error;
    }
  }

  private decrypt(record: StoredUserKey): string {
    if (this.#opener === undefined) throw new UserKeyDecryptionError(record.userId, record.provider);
    try {
      return this.#opener.open(associatedData(record.userId, record.provider), record.ciphertext);
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
