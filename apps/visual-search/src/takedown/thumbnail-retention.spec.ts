import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MessageLogContext } from '@openpaw/platform';
import { LocalFsBlobStore } from '@openpaw/providers';
import sharp from 'sharp';
import type { VisualSearchHandlers } from '../composition.js';
import { EvidenceThumbnails } from '../observation/evidence-thumbnails.js';
import { ThumbnailRetention } from './thumbnail-retention.js';

const DAY_MS = 24 * 60 * 60_000;
const RETENTION_MS = 7 * DAY_MS;

/** What the retention logged: `(fields, message)` pairs. */
function recordingLog(): { readonly log: MessageLogContext; readonly lines: { level: string; fields: Record<string, unknown> }[] } {
  const lines: { level: string; fields: Record<string, unknown> }[] = [];
  const log = { info: (fields: Record<string, unknown>) => lines.push({ level: 'info', fields }), warn: (fields: Record<string, unknown>) => lines.push({ level: 'warn', fields }) };
  return { log: log as unknown as MessageLogContext, lines };
}

/** The retention over these thumbnails, as the module builds it (only `evidence.thumbnails` is read). */
function retention(thumbnails: Pick<EvidenceThumbnails, 'deleteStoredBefore'> | undefined, log: MessageLogContext): ThumbnailRetention {
  const handlers = (thumbnails === undefined ? {} : { evidence: { thumbnails } }) as unknown as VisualSearchHandlers;
  return new ThumbnailRetention(handlers, { thumbnailRetentionMs: RETENTION_MS }, log);
}

describe('ThumbnailRetention: evidence photos are kept `thumbnailRetentionMs` and no longer', () => {
  let root: string;
  let blobs: LocalFsBlobStore;
  let thumbnails: EvidenceThumbnails;
  let photo: Buffer;

  beforeAll(async () => {
    photo = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366cc' } }).png().toBuffer();
  });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'thumbnail-retention-'));
    blobs = new LocalFsBlobStore({ rootDir: root, shareSecret: 'test-share-secret', shareBaseUrl: 'http://localhost/v1/shared' });
    thumbnails = new EvidenceThumbnails(blobs);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A thumbnail stored `ageMs` ago (the local store's time is the object's mtime). */
  async function storedAgo(phash: string, ageMs: number): Promise<string> {
    const key = await thumbnails.store(phash, photo, { recognizer: 'local-world', celebrityIds: ['c-ada', 'c-bea'] });
    const then = new Date(Date.now() - ageMs);
    await utimes(join(root, 'objects', 'visual-evidence~d', `${phash}.jpg~f`), then, then);
    return key;
  }
  const exists = async (key: string): Promise<boolean> => (await blobs.head(key)) !== undefined;

  it('when the service starts, then the thumbnails older than the retention are deleted and the younger ones kept', async () => {
    const old = await storedAgo('00000000000000aa', RETENTION_MS + DAY_MS);
    const justPast = await storedAgo('00000000000000bb', RETENTION_MS + 60_000);
    const young = await storedAgo('00000000000000cc', RETENTION_MS - DAY_MS);
    const fresh = await storedAgo('00000000000000dd', 0);
    const { log, lines } = recordingLog();
    const sweeper = retention(thumbnails, log);

    sweeper.onApplicationBootstrap();
    // Shutdown waits for the sweep in flight.
    await sweeper.onApplicationShutdown();

    expect(await exists(old)).toBe(false);
    expect(await exists(justPast)).toBe(false);
    expect(await exists(young)).toBe(true);
    expect(await exists(fresh)).toBe(true);
    expect(lines).toEqual([{ level: 'info', fields: { deleted: 2, cutoff: expect.any(String) } }]);
    const cutoff = Date.parse(lines[0]?.fields['cutoff'] as string);
    expect(Math.abs(cutoff - (Date.now() - RETENTION_MS))).toBeLessThan(60_000);
  });

  it('when a sweep fails, then it is logged as a warning and the service carries on; without an evidence store nothing is swept', async () => {
    const { log, lines } = recordingLog();
    const failing = retention({ deleteStoredBefore: () => Promise.reject(new Error('bucket unavailable')) }, log);
    failing.onApplicationBootstrap();
    await expect(failing.onApplicationShutdown()).resolves.toBeUndefined();
    expect(lines).toEqual([{ level: 'warn', fields: { err: expect.objectContaining({ message: 'bucket unavailable' }) } }]);

    const quiet = recordingLog();
    const none = retention(undefined, quiet.log);
    none.onApplicationBootstrap();
    await none.onApplicationShutdown();
    expect(quiet.lines).toEqual([]);
  });
});
