import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const moduleFile = fileURLToPath(new URL('./create-blob-store-from-env.ts', import.meta.url));
const tsResolve = fileURLToPath(new URL('../../../testing/jest/ts-workspace-resolve.mjs', import.meta.url));

/**
 * Runs `createBlobStoreFromEnv(env)` in a child whose working directory is a read-only bind mount
 * in its own mount namespace (`unshare -m`: root ignores file modes, a read-only mount it cannot).
 * Returns what the child printed: `ok <backend>` or `error <message>`.
 */
function inReadOnlyDirectory(env: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'openpaw-ro-'));
  try {
    const script = `import(${JSON.stringify(moduleFile)}).then((m) => m.createBlobStoreFromEnv(${JSON.stringify(env)})).then((s) => console.log('ok ' + s.backend), (e) => console.log('error ' + e.message));`;
    const shell = `mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && cd "$1" && exec "$2" --experimental-transform-types --no-warnings --import "$3" --input-type=module -e "$4"`;
    return execFileSync('unshare', ['-m', 'sh', '-c', shell, 'sh', dir, process.execPath, tsResolve, script], { encoding: 'utf8' }).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('blob settings on a read-only root filesystem', () => {
  it('refuses to start with neither a bucket nor a blob directory, naming both settings', () => {
    const out = inReadOnlyDirectory({});
    expect(out).toMatch(/^error blob storage: cannot write .*\.run\/blobs \(E[A-Z]+\); neither OPENPAW_GCS_BUCKET nor OPENPAW_BLOB_DIR is set/);
  });

  it('refuses a blob directory on the read-only filesystem, naming OPENPAW_BLOB_DIR', () => {
    expect(inReadOnlyDirectory({ OPENPAW_BLOB_DIR: 'blobs' })).toMatch(/^error blob storage: cannot write .*blobs \(E[A-Z]+\); OPENPAW_BLOB_DIR must name a writable volume/);
  });

  it('starts on a writable volume outside the read-only directory', () => {
    const volume = mkdtempSync(join(tmpdir(), 'openpaw-volume-'));
    try {
      expect(inReadOnlyDirectory({ OPENPAW_BLOB_DIR: volume, OPENPAW_BLOB_SHARE_SECRET: 'spec-secret' })).toBe('ok local-fs');
    } finally {
      rmSync(volume, { recursive: true, force: true });
    }
  });

  it('needs no directory with a GCS bucket', () => {
    expect(inReadOnlyDirectory({ OPENPAW_GCS_BUCKET: 'openpaw-blobs', OPENPAW_GCS_PROJECT_ID: 'spec' })).toBe('ok gcs');
  });
});
