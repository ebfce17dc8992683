import type { EvidenceCache } from '../domain/evidence-cache.js';
import type { EvidenceThumbnails } from '../observation/evidence-thumbnails.js';
import type { TakedownList, TakedownRecord } from './takedown-list.js';

export interface TakedownPorts {
  readonly takedowns: TakedownList;
  readonly cache: EvidenceCache;
  readonly thumbnails: EvidenceThumbnails;
}

export interface TakedownResult {
  readonly celebrityId: string;
  /** Verified and refuted pairs with the person, purged from the evidence cache shared by every run. */
  readonly cacheEntriesRemoved: number;
  /** Stored photos the recogniser saw the person in, deleted (the gateway answers 404 for them from now on). */
  readonly thumbnailsRemoved: number;
}

/**
 * A person's takedown: recorded first (from then on no step recognises them, keeps a photo of them, or
 * verifies an edge with them: see `ImageObserver` and `VerifyEdgeHandler`), then their evidence already
 * kept is removed: the cached pairs and every stored thumbnail showing them. Run again, it removes what
 * a step in flight may have kept meanwhile (replicas re-read the list within `DEFAULT_TAKEDOWN_REFRESH_MS`).
 */
export async function takeDownPerson(ports: TakedownPorts, request: Omit<TakedownRecord, 'at'>, now: Date = new Date()): Promise<TakedownResult> {
  await ports.takedowns.add({ ...request, at: now.toISOString() });
  const cacheEntriesRemoved = await ports.cache.removePerson(request.recognizer, request.celebrityId);
  const thumbnailsRemoved = await ports.thumbnails.deleteShowing(request.recognizer, request.celebrityId);
  return { celebrityId: request.celebrityId, cacheEntriesRemoved, thumbnailsRemoved };
}
