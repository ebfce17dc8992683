/**
 * The per-user key entry point of the providers lib (`@openpaw/providers/keys`): the key vault
 * (AES-256-GCM at rest) and its store port, nothing else. The gateway may import this and the blob
 * entry point only (ADR 0014): it seals keys, it never calls a provider with them.
 */
export type { Env } from '../shared/env.js';
export { InMemoryUserKeyStore, KEY_PROVIDERS, type KeyProvider, type StoredUserKey, type UserKeyStore } from './user-key-store.js';
export { KEY_ENCRYPTION_KEY_ENV, UserKeyDecryptionError, UserKeyVault } from './user-key-vault.js';
export { SecretSealer } from './secret-sealer.js';
