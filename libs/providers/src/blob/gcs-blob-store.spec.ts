import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGcsServer, type FakeGcsServer } from '../test-support/fake-gcs-server.js';
import { fakeClock } from '../test-support/stub-server.js';
import { BlobNotFoundError, InvalidBlobKeyError } from './errors.js';
import { GcsBlobStore, SHARE_SCOPE_PARAM } from './gcs-blob-store.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let keyDir: string;
const previousAdc = process.env['GOOGLE_APPLICATION_CREDENTIALS'];
let server: FakeGcsServer;
let store: GcsBlobStore;
let clock: ReturnType<typeof fakeClock>;

beforeAll(async () => {
  server = await startFakeGcsServer({ signerPublicKey: publicKey });
  // A service-account key file found through Application Default Credentials, as a deployment
  // would mount it; the SDK signs URLs with its private key locally.
  keyDir = await mkdtemp(join(tmpdir(), 'openpaw-gcs-key-'));
  const keyFilename = join(keyDir, 'service-account.json');
  await writeFile(
    keyFilename,
    JSON.stringify({
      type: 'service_account',
      project_id: 'openpaw-test',
      client_email: 'openpaw-test@openpaw-test.iam.gserviceaccount.com',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    }),
  );
  process.env['GOOGLE_APPLICATION_CREDENTIALS'] = keyFilename;
});
afterAll(async () => {
  if (previousAdc === undefined) delete process.env['GOOGLE_APPLICATION_CREDENTIALS'];
  else process.env['GOOGLE_APPLICATION_CREDENTIALS'] = previousAdc;
  await server.close();
  await rm(keyDir, { recursive: true, force: true });
});
beforeEach(() => {
  server.objects.clear();
  server.requests.length = 0;
  clock = fakeClock(Date.now());
  store = new GcsBlobStore({ bucket: 'openpaw-test', projectId: 'openpaw-test', apiEndpoint: server.url, clock, random: () => 0 });
});

describe('GcsBlobStore (the real SDK) against a GCS JSON API server', () => {
  it('uploads with one multipart request carrying content type and metadata, and reads it back', async () => {
    const put = await store.put('users/42/photo one.png', Buffer.from('png-bytes'), { contentType: 'image/png', metadata: { owner: 'u42' } });
    const upload = server.requests[0]!;
    expect(upload.method).toBe('POST');
    expect(upload.url.pathname).toBe('/upload/storage/v1/b/openpaw-test/o');
    expect(upload.url.searchParams.get('uploadType')).toBe('multipart');
    expect(upload.url.searchParams.get('name')).toBe('users/42/photo one.png');
    expect(upload.headers['content-type']).toMatch(/^multipart\/related; boundary=/);
    expect(upload.body.toString()).toContain('"metadata":{"owner":"u42"}');
    expect(upload.headers.authorization).toBeUndefined();
    expect(put).toMatchObject({ key: 'users/42/photo one.png', size: 9, contentType: 'image/png', metadata: { owner: 'u42' }, md5Base64: expect.any(String) });

    const got = await store.get('users/42/photo one.png');
    expect(got.body.toString()).toBe('png-bytes');
    expect(got.info).toEqual(put);
    const media = server.requests.at(-1)!;
    expect(media.url.pathname).toBe('/storage/v1/b/openpaw-test/o/users%2F42%2Fphoto%20one.png');
    expect(media.url.searchParams.get('alt')).toBe('media');
    expect(media.url.searchParams.get('generation')).toBe(server.objects.get('openpaw-test/users/42/photo one.png')!.resource['generation']);
  });

  it('heads, deletes and reports missing objects', async () => {
    await store.put('a.txt', 'a', { contentType: 'text/plain' });
    expect(await store.head('a.txt')).toMatchObject({ key: 'a.txt', size: 1, contentType: 'text/plain', metadata: {} });
    expect(await store.head('b.txt')).toBeUndefined();
    await expect(store.get('b.txt')).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await store.delete('a.txt')).toBe(true);
    expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE' });
    expect(await store.delete('a.txt')).toBe(false);
    expect(await store.head('a.txt')).toBeUndefined();
  });

  it('lists by prefix with page tokens', async () => {
    for (const key of ['p/c', 'p/a', 'p/b', 'q/a']) await store.put(key, key);
    const first = await store.list({ prefix: 'p/', pageSize: 2 });
    expect(first.items.map((i) => i.key)).toEqual(['p/a', 'p/b']);
    expect(first.nextPageToken).toEqual(expect.any(String));
    const listRequest = server.requests.at(-1)!;
    expect(listRequest.url.pathname).toBe('/storage/v1/b/openpaw-test/o');
    expect(listRequest.url.searchParams.get('prefix')).toBe('p/');
    expect(listRequest.url.searchParams.get('maxResults')).toBe('2');
    const second = await store.list({ prefix: 'p/', pageSize: 2, pageToken: first.nextPageToken! });
    expect(second.items.map((i) => i.key)).toEqual(['p/c']);
    expect(second.nextPageToken).toBeUndefined();
  });

  it('retries 503s with backoff on the injected clock (SDK retries are off)', async () => {
    await store.put('r.txt', 'r');
    server.failNext(2, 503);
    expect(await store.head('r.txt')).toMatchObject({ key: 'r.txt' });
    expect(clock.sleeps).toEqual([250, 500]);
    server.failNext(3, 503);
    await expect(store.head('r.txt')).rejects.toMatchObject({ code: 503 });
  });

  it('signs V4 share URLs locally that the server accepts, and that stop working when tampered with', async () => {
    await store.put('shared/report.txt', 'the report', { contentType: 'text/plain' });
    const share = await store.shareUrl('shared/report.txt', { expiresInSeconds: 900 });
    const url = new URL(share.url);
    expect(url.origin).toBe(server.url);
    expect(url.pathname).toBe('/openpaw-test/shared/report.txt');
    expect(url.searchParams.get('X-Goog-Algorithm')).toBe('GOOG4-RSA-SHA256');
    expect(url.searchParams.get('X-Goog-Credential')).toMatch(/^openpaw-test@openpaw-test\.iam\.gserviceaccount\.com\/\d{8}\/auto\/storage\/goog4_request$/);
    expect(url.searchParams.get('X-Goog-Expires')).toBe('900');
    expect(new Date(share.expiresAt).getTime()).toBe(clock.now() + 900_000);

    const ok = await fetch(share.url);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('the report');

    url.searchParams.set('X-Goog-Expires', '604800');
    expect((await fetch(url)).status).toBe(403);

    await expect(store.shareUrl('shared/missing.txt', { expiresInSeconds: 60 })).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.shareUrl('shared/report.txt', { expiresInSeconds: 8 * 24 * 3600 })).rejects.toThrow(/expiresInSeconds/);
  });

  it('signs a share URL’s scope into the V4 signature: the server refuses it re-scoped or with the scope dropped', async () => {
    await store.put('visual-evidence/0123456789abcdef.jpg', 'jpeg', { contentType: 'image/jpeg' });
    const share = await store.shareUrl('visual-evidence/0123456789abcdef.jpg', { expiresInSeconds: 300, scope: 'user:alice' });
    const url = new URL(share.url);
    expect(url.searchParams.get(SHARE_SCOPE_PARAM)).toBe('user:alice');
    expect((await fetch(url)).status).toBe(200);

    url.searchParams.set(SHARE_SCOPE_PARAM, 'user:bob');
    expect((await fetch(url)).status).toBe(403);
    url.searchParams.delete(SHARE_SCOPE_PARAM);
    expect((await fetch(url)).status).toBe(403);
  });

  it('applies the same key rules as the local store', async () => {
    await expect(store.put('../x', 'x')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    expect(server.requests).toHaveLength(0);
  });
});
