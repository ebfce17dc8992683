import { access, constants, mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Env, envHttpUrl, envValue } from '../shared/env.js';
import { type ProviderLogger, silentLogger } from '../shared/logger.js';
import { GcsBlobStore } from './gcs-blob-store.js';
import { LocalFsBlobStore } from './local-fs-blob-store.js';
import type { BlobStore } from './port.js';
import { loadOrCreateShareSecret } from './share-token.js';

export const DEFAULT_LOCAL_BLOB_DIR = '.run/blobs';
export const DEFAULT_SHARE_BASE_URL = 'http://127.0.0.1:3000/v1/shared';

/** The blob settings of the environment, validated (see `createBlobStoreFromEnv` for the variables). */
export type BlobSettings =
  | { readonly backend: 'gcs'; readonly bucket: string; readonly projectId?: string; readonly apiEndpoint?: string }
  | { readonly backend: 'local-fs'; readonly rootDir: string; readonly shareBaseUrl: string };

/**
 * Reads and validates the blob settings without touching storage (see `assertBlobStoreUsable` for the
 * local directory's writability): what `createBlobStoreFromEnv` would refuse is refused here, naming the variable.
 */
export function blobSettingsFromEnv(env: Env): BlobSettings {
  const bucket = envValue(env, 'OPENPAW_GCS_BUCKET');
  if (bucket !== undefined) {
    const projectId = envValue(env, 'OPENPAW_GCS_PROJECT_ID') ?? envValue(env, 'GOOGLE_CLOUD_PROJECT');
    const apiEndpoint = envHttpUrl(env, 'OPENPAW_GCS_API_ENDPOINT');
    return { backend: 'gcs', bucket, ...(projectId !== undefined ? { projectId } : {}), ...(apiEndpoint !== undefined ? { apiEndpoint } : {}) };
  }
  return { backend: 'local-fs', rootDir: localBlobDir(env), shareBaseUrl: envHttpUrl(env, 'OPENPAW_BLOB_SHARE_BASE_URL') ?? DEFAULT_SHARE_BASE_URL };
}

/**
 * The blob store for a service, from env (validated by `blobSettingsFromEnv`):
 *
 * - GCS when `OPENPAW_GCS_BUCKET` is set, with `OPENPAW_GCS_PROJECT_ID` (else
 *   `GOOGLE_CLOUD_PROJECT`), `OPENPAW_GCS_API_ENDPOINT` (an emulator) and Application Default
 *   Credentials (`GOOGLE_APPLICATION_CREDENTIALS` or workload identity);
 * - otherwise the local filesystem under `OPENPAW_BLOB_DIR` (default `.run/blobs` in the working
 *   directory), share URLs `OPENPAW_BLOB_SHARE_BASE_URL/<token>` signed with
 *   `OPENPAW_BLOB_SHARE_SECRET` (default: a secret file in the blob directory, see `localShareSecretFromEnv`).
 */
export async function createBlobStoreFromEnv(env: Env, options: { readonly logger?: ProviderLogger } = {}): Promise<BlobStore> {
  const logger = options.logger ?? silentLogger;
  const settings = blobSettingsFromEnv(env);
  if (settings.backend === 'gcs') {
    const { bucket, apiEndpoint } = settings;
    logger.info({ backend: 'gcs', bucket, apiEndpoint: apiEndpoint ?? 'https://storage.googleapis.com', local: false }, `blob storage: GCS bucket ${bucket}`);
    return new GcsBlobStore({ bucket, ...(settings.projectId !== undefined ? { projectId: settings.projectId } : {}), ...(apiEndpoint !== undefined ? { apiEndpoint } : {}) });
  }
  const { rootDir, shareBaseUrl } = settings;
  await assertWritableBlobDir(env, rootDir);
  const shareSecret = await localShareSecretFromEnv(env);
  logger.info({ backend: 'local-fs', rootDir, shareBaseUrl, local: true }, `blob storage: LOCAL filesystem at ${rootDir} (local default; set OPENPAW_GCS_BUCKET for GCS)`);
  return new LocalFsBlobStore({ rootDir, shareSecret, shareBaseUrl });
}

/**
 * What a service checks before it starts: the settings valid and, for the local filesystem, the
 * directory writable (a read-only root or a volume not mounted); throws naming the variables.
 */
export async function assertBlobStoreUsable(env: Env): Promise<void> {
  const settings = blobSettingsFromEnv(env);
  if (settings.backend === 'local-fs') await assertWritableBlobDir(env, settings.rootDir);
}

/**
 * Fails at start, naming the settings, when the local blob directory cannot be written: on a
 * read-only root filesystem (the manifests set one) the default `.run/blobs` is not a place to keep
 * blobs or the share secret, and a service must be given a bucket or a writable volume instead.
 */
export async function assertWritableBlobDir(env: Env, rootDir: string = localBlobDir(env)): Promise<void> {
  const probe = join(rootDir, `.write-probe-${process.pid}`);
  try {
    await mkdir(rootDir, { recursive: true });
    await access(rootDir, constants.W_OK);
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    const fix =
      envValue(env, 'OPENPAW_BLOB_DIR') === undefined
        ? 'neither OPENPAW_GCS_BUCKET nor OPENPAW_BLOB_DIR is set and the default directory under the working directory is not writable (read-only root filesystem?): set OPENPAW_GCS_BUCKET to a bucket or OPENPAW_BLOB_DIR to a writable volume'
        : 'OPENPAW_BLOB_DIR must name a writable volume (or set OPENPAW_GCS_BUCKET)';
    throw new Error(`blob storage: cannot write ${rootDir} (${reason}); ${fix}`);
  }
}

/** What the gateway verifies local share tokens with: the same secret the local store signs with. */
export async function localShareSecretFromEnv(env: Env): Promise<Uint8Array | string> {
  return envValue(env, 'OPENPAW_BLOB_SHARE_SECRET') ?? loadOrCreateShareSecret(localBlobDir(env));
}

function localBlobDir(env: Env): string {
  return resolve(envValue(env, 'OPENPAW_BLOB_DIR') ?? DEFAULT_LOCAL_BLOB_DIR);
}
