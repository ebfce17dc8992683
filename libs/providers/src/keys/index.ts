/**
 * The per-user key entry point of the providers lib (`@openpaw/providers/keys`): the key vault
 * (sealed at rest, `sealing.ts`), the secret sealer and the store port, nothing else. The gateway may import this and the blob
 * entry point only (ADR 0014): it seals keys, it never calls a provider with them.
 */
export type { Env } from '../shared/env.js';
export { InMemoryUserKeyStore, KEY_PROVIDERS, type KeyProvider, type StoredUserKey, type UserKeyStore } from './user-key-store.js';
export { UserKeyDecryptionError, UserKeyVault, type VaultKeys } from './user-key-vault.js';
export {
  KEY_ENCRYPTION_KEY_ENV,
  openerFromEnv,
  PublicKeySealer,
  SEALING_PREVIOUS_PRIVATE_KEY_ENV,
  SEALING_PRIVATE_KEY_ENV,
  SEALING_PUBLIC_KEY_ENV,
  SealedTextError,
  SealedTextOpener,
  sealerFromEnv,
  SymmetricSealer,
  type Opener,
  type Sealer,
} from './sealing.js';
export { SecretSealer } from './secret-sealer.js';
