import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobNotFoundError, InvalidBlobKeyError } from './errors.js';
import { LocalFsBlobStore } from './local-fs-blob-store.js';
import { createShareToken, loadOrCreateShareSecret, verifyShareToken } from './share-token.js';

let root: string;
let store: LocalFsBlobStore;
const SECRET = 'test-share-secret';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'openpaw-blobs-'));
  store = new LocalFsBlobStore({ rootDir: root, shareSecret: SECRET, shareBaseUrl: 'http://127.0.0.1:3000/v1/shared/' });
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('LocalFsBlobStore', () => {
  it('round-trips content with its content type and metadata', async () => {
    const bytes = Uint8Array.from([0, 1, 2, 253, 254, 255]);
    const put = await store.put('users/42/raw.bin', bytes, { contentType: 'application/x-test', metadata: { owner: 'u42', source: 'upload' } });
    expect(put).toMatchObject({ key: 'users/42/raw.bin', size: 6, contentType: 'application/x-test', metadata: { owner: 'u42', source: 'upload' } });
    expect(put.md5Base64).toBe(createHash('md5').update(bytes).digest('base64'));
    const got = await store.get('users/42/raw.bin');
    expect([...got.body]).toEqual([...bytes]);
    expect(got.info).toEqual(put);
    expect(await store.head('users/42/raw.bin')).toEqual(put);

    await store.put('notes/hello.txt', 'héllo');
    expect((await store.get('notes/hello.txt')).body.toString('utf8')).toBe('héllo');
    expect((await store.head('notes/hello.txt'))?.contentType).toBe('application/octet-stream');
  });

  it('overwrites, and reports absent keys', async () => {
    await store.put('a.txt', 'one', { contentType: 'text/plain', metadata: { v: '1' } });
    await store.put('a.txt', 'two!', { contentType: 'text/markdown' });
    const got = await store.get('a.txt');
    expect(got.body.toString()).toBe('two!');
    expect(got.info).toMatchObject({ size: 4, contentType: 'text/markdown', metadata: {} });
    expect(await store.head('missing.txt')).toBeUndefined();
    await expect(store.get('missing.txt')).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.get('a.txt/below')).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('lists by prefix in key order with pagination; a key and a "directory" of the same name coexist', async () => {
    for (const key of ['p/b', 'p/a', 'p/a/deep', 'p-other', 'q/x', 'p/c']) await store.put(key, key);
    const all = await store.list();
    expect(all.items.map((i) => i.key)).toEqual(['p-other', 'p/a', 'p/a/deep', 'p/b', 'p/c', 'q/x']);
    expect(all.nextPageToken).toBeUndefined();

    const first = await store.list({ prefix: 'p/', pageSize: 2 });
    expect(first.items.map((i) => i.key)).toEqual(['p/a', 'p/a/deep']);
    const second = await store.list({ prefix: 'p/', pageSize: 2, pageToken: first.nextPageToken! });
    expect(second.items.map((i) => i.key)).toEqual(['p/b', 'p/c']);
    expect(second.nextPageToken).toBeUndefined();

    expect((await store.list({ prefix: 'p' })).items.map((i) => i.key)).toEqual(['p-other', 'p/a', 'p/a/deep', 'p/b', 'p/c']);
    expect((await store.list({ prefix: 'p/a/' })).items.map((i) => i.key)).toEqual(['p/a/deep']);
    expect((await store.list({ prefix: 'nothing/' })).items).toEqual([]);
    expect((await store.list({ prefix: 'q/' })).items[0]).toMatchObject({ key: 'q/x', size: 3 });
  });

  it('deletes, says whether anything was there, and tidies empty directories', async () => {
    await store.put('x/y/z.txt', 'z', { metadata: { a: 'b' } });
    expect(await store.delete('x/y/z.txt')).toBe(true);
    expect(await store.delete('x/y/z.txt')).toBe(false);
    expect(await store.head('x/y/z.txt')).toBeUndefined();
    expect(await filesUnder(root)).toEqual([]);
    expect(await readdir(join(root, 'objects'))).toEqual([]);
  });

  it.each([
    ['a parent segment', '../escape.txt'],
    ['a parent segment deeper in', 'a/../../escape.txt'],
    ['a dot segment', 'a/./b'],
    ['an absolute path', '/etc/passwd'],
    ['a drive path', 'C:/windows'],
    ['backslashes', 'a\\..\\b'],
    ['a NUL byte', 'a\u0000b'],
    ['an empty segment', 'a//b'],
    ['a trailing slash', 'trailing/'],
    ['an empty key', ''],
    ['an over-long key', 'x'.repeat(1025)],
  ])('rejects a key with %s and writes nothing', async (_label, key) => {
    await expect(store.put(key, 'nope')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.get(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    expect(await readdir(root)).toEqual([]);
  });

  it('rejects a prefix that escapes', async () => {
    await expect(store.list({ prefix: '../' })).rejects.toBeInstanceOf(InvalidBlobKeyError);
  });

  it('writes atomically: readers see the old or the new content, never a mix, and no temp file remains', async () => {
    const size = 512 * 1024;
    const a = Buffer.alloc(size, 'a');
    const b = Buffer.alloc(size, 'b');
    await store.put('big.bin', a);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 6; i++) await store.put('big.bin', i % 2 === 0 ? b : a);
      writing = false;
    })();
    const seen = new Set<string>();
    while (writing) {
      const { body } = await store.get('big.bin');
      expect(body.length).toBe(size);
      const first = body[0]!;
      expect(body.every((byte) => byte === first)).toBe(true);
      seen.add(String.fromCharCode(first));
    }
    await writer;
    expect(seen.size).toBeGreaterThan(0);
    const names = await filesUnder(join(root, 'objects'));
    expect(names.sort()).toEqual(['big.bin~f', 'big.bin~m.json']);
  });

  it('issues share URLs whose tokens verify until they expire', async () => {
    await store.put('shared/report.pdf', 'pdf', { contentType: 'application/pdf' });
    const now = new Date('2026-03-01T12:00:00Z');
    const timed = new LocalFsBlobStore({ rootDir: root, shareSecret: SECRET, shareBaseUrl: 'http://127.0.0.1:3000/v1/shared/', now: () => now });
    const share = await timed.shareUrl('shared/report.pdf', { expiresInSeconds: 600 });
    expect(share.expiresAt).toBe('2026-03-01T12:10:00.000Z');
    expect(share.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/v1\/shared\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const token = share.url.split('/').at(-1)!;

    expect(verifyShareToken(token, SECRET, new Date('2026-03-01T12:09:59Z'))).toEqual({ valid: true, key: 'shared/report.pdf', expiresAt: new Date('2026-03-01T12:10:00Z') });
    expect(verifyShareToken(token, SECRET, new Date('2026-03-01T12:10:00Z'))).toEqual({ valid: false, reason: 'expired' });
    expect(verifyShareToken(token, 'another-secret', now)).toEqual({ valid: false, reason: 'bad_signature' });

    const [payload, signature] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ k: 'shared/other.pdf', e: 9999999999 })).toString('base64url');
    expect(verifyShareToken(`${forged}.${signature}`, SECRET, now)).toEqual({ valid: false, reason: 'bad_signature' });
    expect(verifyShareToken(`${payload}`, SECRET, now)).toEqual({ valid: false, reason: 'malformed' });
    expect(verifyShareToken(createShareToken('k', new Date('2026-03-01T12:05:00Z'), SECRET), SECRET, now)).toMatchObject({ valid: true, key: 'k' });

    await expect(store.shareUrl('shared/missing.pdf', { expiresInSeconds: 60 })).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('signs a share URL’s scope with its key and expiry: re-scoping it to someone else breaks the signature', async () => {
    await store.put('visual-evidence/0123456789abcdef.jpg', 'jpeg', { contentType: 'image/jpeg' });
    const now = new Date('2026-03-01T12:00:00Z');
    const timed = new LocalFsBlobStore({ rootDir: root, shareSecret: SECRET, shareBaseUrl: 'http://127.0.0.1:3000/v1/shared/', now: () => now });
    const share = await timed.shareUrl('visual-evidence/0123456789abcdef.jpg', { expiresInSeconds: 300, scope: 'user:alice' });
    const token = share.url.split('/').at(-1)!;
    expect(verifyShareToken(token, SECRET, now)).toEqual({ valid: true, key: 'visual-evidence/0123456789abcdef.jpg', expiresAt: new Date('2026-03-01T12:05:00Z'), scope: 'user:alice' });

    const [payload, signature] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    for (const altered of [{ ...claims, s: 'user:bob' }, { k: claims['k'], e: claims['e'] }]) {
      const rescoped = Buffer.from(JSON.stringify(altered)).toString('base64url');
      expect(verifyShareToken(`${rescoped}.${signature}`, SECRET, now)).toEqual({ valid: false, reason: 'bad_signature' });
    }
    expect(verifyShareToken(createShareToken('k', new Date('2026-03-01T12:05:00Z'), SECRET, 'user:alice'), SECRET, now)).toMatchObject({ scope: 'user:alice' });
  });

  it('creates one share secret per blob root, private to its owner', async () => {
    const first = await loadOrCreateShareSecret(root);
    const second = await loadOrCreateShareSecret(root);
    expect(first.length).toBe(32);
    expect(second.equals(first)).toBe(true);
    expect((await stat(join(root, 'share-secret'))).mode & 0o777).toBe(0o600);
  });
});
