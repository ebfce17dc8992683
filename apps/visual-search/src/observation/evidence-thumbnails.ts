import { EVIDENCE_THUMBNAIL_MAX_SIDE, evidenceThumbnailKey } from '@openpaw/contracts';
import type { BlobStore } from '@openpaw/providers';
import sharp from 'sharp';

/**
 * Evidence photos as the console shows them: a JPEG at most 512 px a side (upright, flattened on
 * white) in the blob store under `evidenceThumbnailKey(phash)`, made from the bytes the step already
 * fetched (through the SSRF-safe fetcher), so no client ever loads the original from its host.
 */
export class EvidenceThumbnails {
  constructor(private readonly blobs: BlobStore) {}

  /** Stores the thumbnail of a fetched photo; its blob key. */
  async store(phash: string, imageBytes: Uint8Array): Promise<string> {
    const key = evidenceThumbnailKey(phash);
    const jpeg = await sharp(imageBytes)
      .rotate()
      .resize({ width: EVIDENCE_THUMBNAIL_MAX_SIDE, height: EVIDENCE_THUMBNAIL_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 80, mozjpeg: true })
      .toBuffer();
    await this.blobs.put(key, jpeg, { contentType: 'image/jpeg' });
    return key;
  }

  /** The blob key of a photo's thumbnail stored earlier (a recognition this run remembers), if it is there. */
  async storedKey(phash: string): Promise<string | undefined> {
    const key = evidenceThumbnailKey(phash);
    return (await this.blobs.head(key)) === undefined ? undefined : key;
  }
}

/** Only a photo with two or more faces can be evidence of a link: only those get a thumbnail. */
export const mayBeEvidence = (faces: readonly unknown[]): boolean => faces.length >= 2;
