import { Inject, Injectable } from '@nestjs/common';
import { EVIDENCE_THUMBNAIL_ID, evidenceThumbnailKey, hasErrorCode } from '@openpaw/contracts';
import type { BlobStore } from '@openpaw/providers/blob';
import { z } from 'zod';
import { BLOB_STORE } from '../assets/blobs/blob-store.provider.js';
import { streamEventsOf } from './visual-degrees.schemas.js';

/** `GET /visual-degrees/{id}/evidence/{thumbnail}`: the run and the thumbnail's id (the photo's pHash). */
export const evidenceThumbnailParams = z.object({
  id: z.uuid(),
  thumbnail: z.string().regex(EVIDENCE_THUMBNAIL_ID, 'a thumbnail id: 16 lowercase hex digits (the evidence card’s `thumbnail`)'),
});

const thumbnailOf = (image: unknown): string | undefined => {
  const thumbnail = typeof image === 'object' && image !== null ? (image as Record<string, unknown>)['thumbnail'] : undefined;
  return typeof thumbnail === 'string' ? thumbnail : undefined;
};

/** The thumbnails a run's view shows: its evidence cards' and its final edges' evidence images'. */
export function thumbnailsOf(view: Record<string, unknown>): Set<string> {
  const ids = new Set<string>();
  for (const event of streamEventsOf(view)) {
    const card = thumbnailOf(event.data);
    if (event.type === 'evidence' && card !== undefined) ids.add(card);
    if (event.type !== 'final' || !Array.isArray(event.data['edges'])) continue;
    for (const edge of event.data['edges'] as unknown[]) {
      const evidence = typeof edge === 'object' && edge !== null ? (edge as Record<string, unknown>)['evidence'] : undefined;
      if (!Array.isArray(evidence)) continue;
      for (const image of evidence) {
        const id = thumbnailOf(image);
        if (id !== undefined) ids.add(id);
      }
    }
  }
  return ids;
}

/** How long a signed thumbnail URL lives: long enough for the console to load it, too short to pass around. */
export const EVIDENCE_THUMBNAIL_URL_SECONDS = 300;

/** `GET /visual-degrees/{id}/evidence/{thumbnail}`: a signed, expiring URL of the thumbnail's JPEG. */
export const evidenceThumbnailLink = z.object({
  url: z.string().describe('Signed for this one thumbnail and this one user (a GCS V4 signed URL, or a local `/v1/shared/<token>` HMAC token); no bearer token needed.'),
  expiresAt: z.iso.datetime().describe(`When the URL stops working (${EVIDENCE_THUMBNAIL_URL_SECONDS} s after it was issued); ask again for a fresh one.`),
});

/** Whom a thumbnail URL is signed for: the run's owner. */
export const thumbnailScopeOf = (userId: string): string => `user:${userId}`;

/**
 * Evidence thumbnails (written by visual-search into the shared blob store, `evidenceThumbnailKey`),
 * each linked only through a run whose view shows it, and only for the run's owner: the link is a
 * short-lived URL signed for that one object and that user, never a thumbnail by its id alone.
 */
@Injectable()
export class EvidenceThumbnailLinks {
  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  /** The signed URL, or undefined when the run does not show this thumbnail or its blob is gone. */
  async sign(view: Record<string, unknown>, thumbnail: string, userId: string): Promise<z.output<typeof evidenceThumbnailLink> | undefined> {
    if (!thumbnailsOf(view).has(thumbnail)) return undefined;
    try {
      return await this.blobs.shareUrl(evidenceThumbnailKey(thumbnail), { expiresInSeconds: EVIDENCE_THUMBNAIL_URL_SECONDS, scope: thumbnailScopeOf(userId) });
    } catch (error) {
      if (hasErrorCode(error, 'blob_not_found')) return undefined;
      throw error;
    }
  }
}
