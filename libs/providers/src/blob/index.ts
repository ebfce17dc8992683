/**
 * The blob entry point of the providers lib (`@openpaw/providers/blob`): blob storage and share
 * tokens, nothing else. The gateway may import this and only this of the providers (ADR 0012): it
 * reads and writes blobs, and never reaches a model, OCR or search provider.
 */
export type { Env } from '../shared/env.js';
export type { BlobInfo, BlobStore, ListOptions, ListPage, PutOptions, ShareOptions, ShareUrl } from './port.js';
export { BlobNotFoundError, InvalidBlobKeyError } from './errors.js';
export { validateBlobKey } from './blob-key.js';
export { createShareToken, loadOrCreateShareSecret, type ShareTokenVerification, verifyShareToken } from './share-token.js';
export { LocalFsBlobStore, type LocalFsBlobStoreConfig } from './local-fs-blob-store.js';
export { GcsBlobStore, type GcsBlobStoreConfig, MAX_SIGNED_URL_SECONDS, SHARE_SCOPE_PARAM } from './gcs-blob-store.js';
export {
  assertBlobStoreUsable,
  type BlobSettings,
  blobSettingsFromEnv,
  createBlobStoreFromEnv,
  DEFAULT_LOCAL_BLOB_DIR,
  DEFAULT_SHARE_BASE_URL,
  localShareSecretFromEnv,
} from './create-blob-store-from-env.js';
