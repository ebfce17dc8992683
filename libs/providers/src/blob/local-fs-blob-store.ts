import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { validateBlobKey, validateBlobPrefix } from './blob-key.js';
import { BlobNotFoundError, InvalidBlobKeyError } from './errors.js';
import type { BlobInfo, BlobStore, ListOptions, ListPage, PutOptions, ShareOptions, ShareUrl } from './port.js';
import { createShareToken } from './share-token.js';

export interface LocalFsBlobStoreConfig {
  /** `OPENPAW_BLOB_DIR`; objects live under `<rootDir>/objects`. */
  readonly rootDir: string;
  /** HMAC key of share tokens (`OPENPAW_BLOB_SHARE_SECRET`, or `loadOrCreateShareSecret(rootDir)`). */
  readonly shareSecret: Uint8Array | string;
  /** Share URLs are `<shareBaseUrl>/<token>`: the gateway route that verifies and serves them. */
  readonly shareBaseUrl: string;
  readonly now?: () => Date;
}

interface Sidecar {
  readonly contentType: string;
  readonly metadata: Record<string, string>;
  readonly md5Base64: string;
  readonly size: number;
}

/*
 * Layout: every key segment but the last is a directory named `<segment>~d`; the object is
 * `<leaf>~f` and its sidecar `<leaf>~m.json` beside it; temp files end in `~t`. The role suffix makes
 * names unambiguous (key `a` and key `a/b` can coexist, a key can never name a sidecar or temp file),
 * and key validation plus a resolved-path check keep every path inside the root.
 */
const DIR = '~d';
const DATA = '~f';
const META = '~m.json';
const TEMP = '~t';

/**
 * The local default blob store: the filesystem under one root directory. Writes are atomic (temp
 * file, fsync, rename); the sidecar is written before the data, so a crash leaves either the old
 * object or the new one's metadata with no visible data change (overwrites can, for that instant,
 * show new metadata with old data). Share URLs are HMAC-signed tokens that `verifyShareToken` checks.
 */
export class LocalFsBlobStore implements BlobStore {
  readonly backend = 'local-fs';
  private readonly objectsDir: string;
  private readonly now: () => Date;

  constructor(private readonly config: LocalFsBlobStoreConfig) {
    this.objectsDir = resolve(config.rootDir, 'objects');
    this.now = config.now ?? (() => new Date());
  }

  async put(key: string, body: Uint8Array | string, options: PutOptions = {}): Promise<BlobInfo> {
    const { dir, dataPath, metaPath } = this.paths(key);
    const data = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const sidecar: Sidecar = {
      contentType: options.contentType ?? 'application/octet-stream',
      metadata: { ...options.metadata },
      md5Base64: createHash('md5').update(data).digest('base64'),
      size: data.length,
    };
    await mkdir(dir, { recursive: true });
    await atomicWrite(dir, metaPath, Buffer.from(JSON.stringify(sidecar), 'utf8'));
    await atomicWrite(dir, dataPath, data);
    const info = await this.head(key);
    if (info === undefined) throw new Error(`blob ${key} vanished right after it was written`);
    return info;
  }

  async get(key: string): Promise<{ info: BlobInfo; body: Buffer }> {
    const { dataPath } = this.paths(key);
    let body: Buffer;
    try {
      body = await readFile(dataPath);
    } catch (error) {
      if (isMissing(error)) throw new BlobNotFoundError(key);
      throw error;
    }
    const info = await this.head(key);
    if (info === undefined) throw new BlobNotFoundError(key);
    return { info, body };
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    const { dataPath, metaPath } = this.paths(key);
    let stats;
    try {
      stats = await stat(dataPath);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    const sidecar = await readSidecar(metaPath);
    return {
      key,
      size: stats.size,
      contentType: sidecar?.contentType ?? 'application/octet-stream',
      metadata: sidecar?.metadata ?? {},
      ...(sidecar?.md5Base64 !== undefined && sidecar.size === stats.size ? { md5Base64: sidecar.md5Base64 } : {}),
      updatedAt: stats.mtime.toISOString(),
    };
  }

  async delete(key: string): Promise<boolean> {
    const { dataPath, metaPath, dirs } = this.paths(key);
    let existed = true;
    try {
      await rm(dataPath);
    } catch (error) {
      if (!isMissing(error)) throw error;
      existed = false;
    }
    await rm(metaPath, { force: true });
    // Drop directories left empty, deepest first; stop at the first that still holds something.
    for (let i = dirs.length; i > 0; i--) {
      try {
        await rmdir(join(this.objectsDir, ...dirs.slice(0, i)));
      } catch {
        break;
      }
    }
    return existed;
  }

  async list(options: ListOptions = {}): Promise<ListPage> {
    const prefix = options.prefix ?? '';
    validateBlobPrefix(prefix);
    const pageSize = Math.min(1000, Math.max(1, options.pageSize ?? 100));
    const after = options.pageToken !== undefined ? decodePageToken(options.pageToken) : undefined;
    // Walk only the directory of the prefix's complete segments.
    const complete = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')).split('/') : [];
    const keys: string[] = [];
    await this.collect(join(this.objectsDir, ...complete.map((s) => s + DIR)), complete, keys);
    const matching = keys
      .filter((k) => k.startsWith(prefix) && (after === undefined || compareKeys(k, after) > 0))
      .sort(compareKeys);
    const page = matching.slice(0, pageSize);
    const items: BlobInfo[] = [];
    for (const key of page) {
      const info = await this.head(key);
      if (info !== undefined) items.push(info);
    }
    const last = page.at(-1);
    return { items, ...(matching.length > pageSize && last !== undefined ? { nextPageToken: Buffer.from(last, 'utf8').toString('base64url') } : {}) };
  }

  async shareUrl(key: string, options: ShareOptions): Promise<ShareUrl> {
    if (!(options.expiresInSeconds > 0)) throw new Error('expiresInSeconds must be positive');
    if ((await this.head(key)) === undefined) throw new BlobNotFoundError(key);
    const expiresAt = new Date(this.now().getTime() + options.expiresInSeconds * 1000);
    const token = createShareToken(key, expiresAt, this.config.shareSecret, options.scope);
    return { url: `${this.config.shareBaseUrl.replace(/\/+$/, '')}/${token}`, expiresAt: expiresAt.toISOString() };
  }

  private async collect(dir: string, segments: string[], out: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.isDirectory() && entry.name.endsWith(DIR)) {
        const segment = entry.name.slice(0, -DIR.length);
        await this.collect(join(dir, entry.name), [...segments, segment], out);
      } else if (entry.isFile() && entry.name.endsWith(DATA)) {
        out.push([...segments, entry.name.slice(0, -DATA.length)].join('/'));
      }
    }
  }

  private paths(key: string): { dir: string; dataPath: string; metaPath: string; dirs: string[] } {
    const segments = validateBlobKey(key);
    const leaf = segments.at(-1)!;
    const dirs = segments.slice(0, -1).map((s) => s + DIR);
    const dir = join(this.objectsDir, ...dirs);
    const dataPath = join(dir, leaf + DATA);
    const metaPath = join(dir, leaf + META);
    // Defence in depth: validation already rules out escapes; the resolved path must agree.
    if (!resolve(dataPath).startsWith(this.objectsDir + sep)) throw new InvalidBlobKeyError(key, 'resolves outside the blob root');
    return { dir, dataPath, metaPath, dirs };
  }
}

async function atomicWrite(dir: string, finalPath: string, data: Buffer): Promise<void> {
  const temp = join(dir, `.${randomUUID()}${TEMP}`);
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, finalPath);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

async function readSidecar(path: string): Promise<Sidecar | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Sidecar;
  } catch (error) {
    if (isMissing(error) || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Byte order of the UTF-8 encoding, as GCS lists. */
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function decodePageToken(token: string): string {
  const key = Buffer.from(token, 'base64url').toString('utf8');
  if (key === '') throw new Error('invalid page token');
  return key;
}
