import { resolve, join } from 'node:path';
import type { CliEnv } from './io.js';

/** The local blob store's default root (`OPENPAW_BLOB_DIR`), relative to the working directory. */
export const DEFAULT_LOCAL_BLOB_DIR = '.run/blobs';

/**
 * Where the local filesystem blob store keeps `storageKey` (the layout of `@openpaw/providers`'
 * `LocalFsBlobStore`: `<root>/objects/<segment>~d/.../<leaf>~f`), or `undefined` when blobs live in
 * GCS (`OPENPAW_GCS_BUCKET`) or the key is not a plain path.
 */
export function localBlobPath(env: CliEnv, cwd: string, storageKey: string): string | undefined {
  if ((env['OPENPAW_GCS_BUCKET'] ?? '') !== '') return undefined;
  const segments = storageKey.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) return undefined;
  const leaf = segments.pop();
  if (leaf === undefined) return undefined;
  const root = resolve(cwd, env['OPENPAW_BLOB_DIR'] ?? DEFAULT_LOCAL_BLOB_DIR);
  return join(root, 'objects', ...segments.map((s) => `${s}~d`), `${leaf}~f`);
}
