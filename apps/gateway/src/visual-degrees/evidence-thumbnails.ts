import { Inject, Injectable } from '@nestjs/common';
import { EVIDENCE_THUMBNAIL_ID, evidenceThumbnailKey, hasErrorCode } from '@openpaw/contracts';
import type { BlobStore } from '@openpaw/providers/blob';
import { z } from 'zod';
import { BLOB_STORE, ShareLinkVerifier } from '../assets/blobs/blob-store.provider.js';
import { holderCookie } from '../assets/share-holder.js';
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
  url: z
    .string()
    .describe(
      'Signed for this one thumbnail and this one user (a GCS V4 signed URL, or a local `/v1/shared/<token>` HMAC token); no bearer token needed. ' +
        'A local URL is served only with the HttpOnly holder cookie this response sets (same origin: an `<img>` of the console carries it); a GCS URL is a bearer URL until it expires.',
    ),
  expiresAt: z.iso.datetime().describe(`When the URL stops working (${EVIDENCE_THUMBNAIL_URL_SECONDS} s after it was issued); ask again for a fresh one.`),
});

/** Whom a thumbnail URL is signed for: the run's owner. */
export const thumbnailScopeOf = (userId: string): string => `user:${userId}`;

/**
 * Evidence thumbnails (written by visual-search into the shared blob store, `evidenceThumbnailKey`),
 * each linked only through a run whose view shows it, and only for the run's owner: the link is a
 * short-lived URL signed for that one object and that user, never a thumbnail by its id alone. With
 * the local store, the link also works only for its holder: `holderCookie` is the `Set-Cookie` that
 * goes with it (assets/share-holder.ts); a GCS V4 URL cannot be bound so (none).
 */
@Injectable()
export class EvidenceThumbnailLinks {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly shareLinks: ShareLinkVerifier,
  ) {}

  /** The signed URL (and its holder cookie), or undefined when the run does not show this thumbnail or its blob is gone. */
  async sign(view: Record<string, unknown>, thumbnail: string, userId: string, secure: boolean): Promise<{ readonly link: z.output<typeof evidenceThumbnailLink>; readonly holderCookie?: string } | undefined> {
    if (!thumbnailsOf(view).has(thumbnail)) return undefined;
    const scope = thumbnailScopeOf(userId);
    let link: z.output<typeof evidenceThumbnailLink>;
    try {
      link = await this.blobs.shareUrl(evidenceThumbnailKey(thumbnail), { expiresInSeconds: EVIDENCE_THUMBNAIL_URL_SECONDS, scope });
    } catch (error) {
      if (hasErrorCode(error, 'blob_not_found')) return undefined;
      throw error;
    }
    const proof = await this.shareLinks.holderProof(scope);
    if (proof === undefined) return { link };
    // For the share route's path only (the link's own, without its token).
    const path = new URL(link.url, 'http://share.invalid').pathname.replace(/\/[^/]*$/, '') || '/';
    return { link, holderCookie: holderCookie(proof, { path, maxAgeSeconds: EVIDENCE_THUMBNAIL_URL_SECONDS, secure }) };
  }
}
