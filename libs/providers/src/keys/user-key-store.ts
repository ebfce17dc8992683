/** The providers a user can bring a key for. */
export type KeyProvider = 'openai' | 'anthropic' | 'gemini';

export const KEY_PROVIDERS: readonly KeyProvider[] = ['openai', 'anthropic', 'gemini'];

/** What is persisted: ciphertext only, bound to its user and provider. */
export interface StoredUserKey {
  readonly userId: string;
  readonly provider: KeyProvider;
  /** `v1:<iv>:<tag>:<ciphertext>`, base64 parts; AES-256-GCM with the user and provider as associated data. */
  readonly ciphertext: string;
  readonly updatedAt: string;
}

/**
 * Where encrypted keys live. A service implements it over its own table (ciphertext column); the
 * in-memory one serves tests and the local default.
 */
export interface UserKeyStore {
  save(record: StoredUserKey): Promise<void>;
  load(userId: string, provider: KeyProvider): Promise<StoredUserKey | undefined>;
  delete(userId: string, provider: KeyProvider): Promise<boolean>;
  list(userId: string): Promise<StoredUserKey[]>;
}

export class InMemoryUserKeyStore implements UserKeyStore {
  private readonly records = new Map<string, StoredUserKey>();

  save(record: StoredUserKey): Promise<void> {
    this.records.set(`${record.userId}\u0000${record.provider}`, record);
    return Promise.resolve();
  }

  load(userId: string, provider: KeyProvider): Promise<StoredUserKey | undefined> {
    return Promise.resolve(this.records.get(`${userId}\u0000${provider}`));
  }

  delete(userId: string, provider: KeyProvider): Promise<boolean> {
    return Promise.resolve(this.records.delete(`${userId}\u0000${provider}`));
  }

  list(userId: string): Promise<StoredUserKey[]> {
    return Promise.resolve([...this.records.values()].filter((r) => r.userId === userId));
  }
}
