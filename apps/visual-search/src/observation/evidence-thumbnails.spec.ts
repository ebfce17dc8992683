import sharp from 'sharp';
import { EVIDENCE_THUMBNAIL_PREFIX, evidenceThumbnailKey } from '@openpaw/contracts';
import { temporaryBlobStore } from '../local-world-ports.js';
import { EvidenceThumbnails } from './evidence-thumbnails.js';

const photo = (): Promise<Buffer> => sharp({ create: { width: 900, height: 600, channels: 3, background: '#8899aa' } }).png().toBuffer();
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('evidence thumbnails: retention and who they show', () => {
  it('keeps a ≤ 512 px JPEG with the recogniser and the ids it shows; deletes those stored before the cutoff, and only those', async () => {
    const blobs = temporaryBlobStore();
    const thumbnails = new EvidenceThumbnails(blobs);
    const old = await thumbnails.store('00000000000000aa', await photo(), { recognizer: 'aws/rekognition', celebrityIds: ['1abc', '2def'] });
    await pause(30);
    const cutoff = new Date();
    await pause(30);
    const fresh = await thumbnails.store('00000000000000bb', await photo(), { recognizer: 'aws/rekognition', celebrityIds: ['2def', '3ghi'] });
    expect(await blobs.head(old)).toMatchObject({ contentType: 'image/jpeg', metadata: { recognizer: 'aws/rekognition', people: '1abc 2def' } });
    expect((await sharp((await blobs.get(fresh)).body).metadata()).width).toBe(512);

    expect(await thumbnails.deleteStoredBefore(cutoff)).toBe(1);
    expect((await blobs.list({ prefix: EVIDENCE_THUMBNAIL_PREFIX })).items.map((i) => i.key)).toEqual([evidenceThumbnailKey('00000000000000bb')]);
  });

  it('deletes the pictures of one person by the recogniser that saw them: not another recogniser\'s same id, not other people\'s', async () => {
    const blobs = temporaryBlobStore();
    const thumbnails = new EvidenceThumbnails(blobs);
    await thumbnails.store('00000000000000a1', await photo(), { recognizer: 'aws/rekognition', celebrityIds: ['1abc', '2def'] });
    await thumbnails.store('00000000000000a2', await photo(), { recognizer: 'local/glyph-recognizer', celebrityIds: ['1abc', '9zzz'] });
    await thumbnails.store('00000000000000a3', await photo(), { recognizer: 'aws/rekognition', celebrityIds: ['2def', '3ghi'] });
    expect(await thumbnails.deleteShowing('aws/rekognition', '1abc')).toBe(1);
    expect((await blobs.list({ prefix: EVIDENCE_THUMBNAIL_PREFIX })).items.map((i) => i.key)).toEqual([evidenceThumbnailKey('00000000000000a2'), evidenceThumbnailKey('00000000000000a3')]);
  });
});
