import { EVIDENCE_THUMBNAIL_MAX_SIDE, EVIDENCE_THUMBNAIL_PREFIX, evidenceThumbnailKey } from '@openpaw/contracts';
import { type BlobInfo, type BlobStore, loadSharp } from '@openpaw/providers';

/**
 * Evidence photos as the console shows them: a JPEG at most 512 px a side (upright, flattened on
 * white) in the blob store under `evidenceThumbnailKey(phash)`, made from the bytes the step already
 * fetched (through the SSRF-safe fetcher), so no client ever loads the original from its host.
 */
export class EvidenceThumbnails {
  constructor(private readonly blobs: BlobStore) {}

  /**
   * Stores the thumbnail of a fetched photo; its blob key. `shows`: who the recogniser saw in it (its
   * identity and their ids), kept with the object so a takedown finds every picture of a person.
   */
  async store(phash: string, imageBytes: Uint8Array, shows: PeopleShown): Promise<string> {
    const key = evidenceThumbnailKey(phash);
    const sharp = await loadSharp();
    const jpeg = await sharp(imageBytes)
      .rotate()
      .resize({ width: EVIDENCE_THUMBNAIL_MAX_SIDE, height: EVIDENCE_THUMBNAIL_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 80, mozjpeg: true })
      .toBuffer();
    await this.blobs.put(key, jpeg, { contentType: 'image/jpeg', metadata: { recognizer: shows.recognizer, people: shows.celebrityIds.join(' ') } });
    return key;
  }

  /** Deletes the thumbnails stored before `cutoff` (the retention limit); how many. */
  async deleteStoredBefore(cutoff: Date): Promise<number> {
    return this.deleteWhere((thumbnail) => Date.parse(thumbnail.updatedAt) < cutoff.getTime());
  }

  /** Deletes every thumbnail the recogniser saw this person in (a takedown); how many. */
  async deleteShowing(recognizer: string, celebrityId: string): Promise<number> {
    return this.deleteWhere((thumbnail) => thumbnail.metadata['recognizer'] === recognizer && (thumbnail.metadata['people'] ?? '').split(' ').includes(celebrityId));
  }

  private async deleteWhere(doomed: (thumbnail: BlobInfo) => boolean): Promise<number> {
    let deleted = 0;
    let pageToken: string | undefined;
    do {
      const page = await this.blobs.list({ prefix: EVIDENCE_THUMBNAIL_PREFIX, pageSize: 1000, ...(pageToken === undefined ? {} : { pageToken }) });
      for (const thumbnail of page.items) {
        if (doomed(thumbnail) && (await this.blobs.delete(thumbnail.key))) deleted += 1;
      }
      pageToken = page.nextPageToken;
    } while (pageToken !== undefined);
    return deleted;
  }

  /** The blob key of a photo's thumbnail stored earlier (a recognition this run remembers), if it is there. */
  async storedKey(phash: string): Promise<string | undefined> {
    const key = evidenceThumbnailKey(phash);
    return (await this.blobs.head(key)) === undefined ? undefined : key;
  }
}

/** Who a stored photo shows, by the recogniser that saw them. */
export interface PeopleShown {
  readonly recognizer: string;
  readonly celebrityIds: readonly string[];
}

/** Only a photo with two or more faces can be evidence of a link: only those get a thumbnail. */
export const mayBeEvidence = (faces: readonly unknown[]): boolean => faces.length >= 2;
