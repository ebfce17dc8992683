import { type CelebrityRecognizer, type ImageFetcher, type ImageSearch, prepareImageForRecognition, ProviderError } from '@openpaw/providers';
import type { ImageObservation, SeenCelebrity } from '../domain/observation.js';
import { findNearDuplicate, photoPhash } from '../domain/photo-phash.js';
import type { RunKey, RunMemory } from '../memory/run-memory.js';
import type { TakedownList } from '../takedown/takedown-list.js';
import { type EvidenceThumbnails, mayBeEvidence } from './evidence-thumbnails.js';
import { StepProviderFailure } from './step-failure.js';

export interface StepUsage {
  readonly searchCalls: number;
  readonly recognitionCalls: number;
  /** Images not recognised again: seen earlier (same URL or near-identical pHash). */
  readonly imagesSkipped: number;
}

export interface ObserveRequest {
  readonly run: RunKey;
  readonly queries: readonly string[];
  readonly imagesPerQuery: number;
  readonly budget: { readonly searchCalls: number; readonly recognitionCalls: number };
  readonly signal?: AbortSignal;
}

export interface ObserveOutcome {
  /** One per distinct photo, in search order. */
  readonly observations: readonly ImageObservation[];
  readonly usage: StepUsage;
  readonly budgetExhausted?: 'search' | 'recognition';
  /** Images that could not be used (fetch refused or failed, not an image, refused by the recogniser). */
  readonly unusable: readonly { readonly imageUrl: string; readonly reason: string }[];
}

export interface ObserverPorts {
  readonly search: ImageSearch;
  readonly fetcher: ImageFetcher;
  readonly recognizer: CelebrityRecognizer;
  readonly memory: RunMemory;
  readonly thumbnails: EvidenceThumbnails;
  /** People taken down: a photo showing them is no evidence for anyone (it could not be shown), and gets no thumbnail. */
  readonly takedowns: TakedownList;
}

/**
 * Search → fetch → pHash → recognise, for the queries of one step, within the step's budget. A query
 * already run in this run is not searched again (its hits are in `seen:queries`). A photo is
 * recognised at most once per run: an image URL seen before, or a photo whose pHash is within a few
 * bits of one seen before (the same picture found by another query, re-encoded or resized), reuses the
 * recognition kept in run memory. If that memory expired, the photo is simply recognised again.
 * A recognised photo with two or more faces (possible evidence) gets its thumbnail stored from the
 * fetched bytes, and its observation carries the thumbnail's blob key. A photo that shows a person taken
 * down (fresh or remembered, beside whoever else) is left out of the observations: no thumbnail, and no
 * evidence for anyone, since its address may not be handed out; its recognition is not kept.
 */
export class ImageObserver {
  constructor(private readonly ports: ObserverPorts) {}

  async observe(request: ObserveRequest): Promise<ObserveOutcome> {
    const { memory } = this.ports;
    const takenDown = await this.ports.takedowns.ids(this.ports.recognizer.provider);
    const showsTakenDown = (celebrities: readonly SeenCelebrity[]): boolean => celebrities.some((c) => takenDown.has(c.celebrityId));
    const seenImages = new Map(await memory.seen(request.run, 'images'));
    const earlierHashes = new Set(seenImages.values());
    const observations: ImageObservation[] = [];
    const observedHashes = new Set<string>();
    const unusable: { imageUrl: string; reason: string }[] = [];
    const newImages = new Map<string, string>();
    const newQueries = new Map<string, string>();
    let searchCalls = 0;
    let recognitionCalls = 0;
    let imagesSkipped = 0;
    let budgetExhausted: 'search' | 'recognition' | undefined;
    const usage = (): StepUsage => ({ searchCalls, recognitionCalls, imagesSkipped });

    const seenQueries = await memory.seen(request.run, 'queries');
    queries: for (const query of request.queries) {
      request.signal?.throwIfAborted();
      let hits = rememberedHits(seenQueries.get(query), request.imagesPerQuery);
      if (hits === undefined) {
        if (searchCalls >= request.budget.searchCalls) {
          budgetExhausted = 'search';
          break;
        }
        searchCalls += 1;
        try {
          hits = (await this.ports.search.search(query, { limit: request.imagesPerQuery, ...signal(request) })).hits.slice(0, request.imagesPerQuery);
        } catch (error) {
          request.signal?.throwIfAborted();
          throw StepProviderFailure.from('search_unavailable', error, usage());
        }
        newQueries.set(query, JSON.stringify({ limit: request.imagesPerQuery, hits: hits.map((h) => ({ imageUrl: h.imageUrl, ...(h.sourcePageUrl === undefined ? {} : { sourcePageUrl: h.sourcePageUrl }) })) }));
      }
      for (const hit of hits) {
        request.signal?.throwIfAborted();
        const page = hit.sourcePageUrl === undefined ? {} : { sourcePageUrl: hit.sourcePageUrl };
        const keep = async (phash: string, recognised: readonly SeenCelebrity[], thumbnailKey?: string): Promise<void> => {
          observedHashes.add(phash);
          if (showsTakenDown(recognised)) return;
          const thumbnail = thumbnailKey ?? (mayBeEvidence(recognised) ? await this.ports.thumbnails.storedKey(phash) : undefined);
          observations.push({ imageUrl: hit.imageUrl, ...page, query, phash, celebrities: recognised, ...(thumbnail === undefined ? {} : { thumbnailKey: thumbnail }) });
        };
        const knownHash = seenImages.get(hit.imageUrl);
        if (knownHash !== undefined) {
          if (observedHashes.has(knownHash)) continue;
          const remembered = await memory.getRecognition(request.run, knownHash);
          if (remembered !== undefined) {
            imagesSkipped += 1;
            await keep(knownHash, remembered);
            continue;
          }
        }
        let bytes: Buffer;
        let phash: string;
        try {
          bytes = (await this.ports.fetcher.fetch(hit.imageUrl, signal(request))).bytes;
          phash = await photoPhash(bytes);
        } catch (error) {
          // An aborted fetch is the run's end, not an unusable image.
          request.signal?.throwIfAborted();
          unusable.push({ imageUrl: hit.imageUrl, reason: error instanceof Error ? error.message.slice(0, 200) : 'unreadable' });
          continue;
        }
        newImages.set(hit.imageUrl, phash);
        seenImages.set(hit.imageUrl, phash);
        if (findNearDuplicate(phash, observedHashes) !== undefined) {
          // The same photo already came up in this step under another URL or query.
          imagesSkipped += 1;
          continue;
        }
        const earlier = findNearDuplicate(phash, earlierHashes) ?? phash;
        const remembered = await memory.getRecognition(request.run, earlier);
        if (remembered !== undefined) {
          imagesSkipped += 1;
          await keep(earlier, remembered);
          continue;
        }
        if (recognitionCalls >= request.budget.recognitionCalls) {
          budgetExhausted = 'recognition';
          break queries;
        }
        let prepared;
        try {
          prepared = await prepareImageForRecognition(bytes);
        } catch (error) {
          unusable.push({ imageUrl: hit.imageUrl, reason: error instanceof Error ? error.message.slice(0, 200) : 'unreadable' });
          continue;
        }
        recognitionCalls += 1;
        let celebrities: readonly SeenCelebrity[];
        try {
          const result = await this.ports.recognizer.recognize(prepared.bytes, signal(request));
          celebrities = result.celebrities.map((c) => ({ celebrityId: c.celebrityId, name: c.name, confidence: c.matchConfidence }));
        } catch (error) {
          request.signal?.throwIfAborted();
          if (error instanceof ProviderError && error.kind === 'bad_request') {
            unusable.push({ imageUrl: hit.imageUrl, reason: error.message.slice(0, 200) });
            continue;
          }
          await this.remember(request.run, newImages, newQueries);
          throw StepProviderFailure.from('recognition_unavailable', error, usage());
        }
        if (showsTakenDown(celebrities)) {
          // Not kept, not evidence (seen again in the run, it is recognised again).
          observedHashes.add(phash);
          continue;
        }
        await memory.putRecognition(request.run, phash, celebrities);
        await keep(phash, celebrities, mayBeEvidence(celebrities) ? await this.thumbnailOf(phash, bytes, celebrities) : undefined);
      }
    }
    await this.remember(request.run, newImages, newQueries);
    return { observations, usage: usage(), unusable, ...(budgetExhausted !== undefined ? { budgetExhausted } : {}) };
  }

  /**
   * Stores the photo's thumbnail; its key, or undefined when it could not be made or stored: the
   * evidence stands without a picture (the console then shows the image URL only), so a storage
   * fault does not fail the step.
   */
  private async thumbnailOf(phash: string, bytes: Buffer, shows: readonly SeenCelebrity[]): Promise<string | undefined> {
    try {
      return await this.ports.thumbnails.store(phash, bytes, { recognizer: this.ports.recognizer.provider, celebrityIds: shows.map((c) => c.celebrityId) });
    } catch {
      return undefined;
    }
  }

  private async remember(run: RunKey, images: ReadonlyMap<string, string>, queries: ReadonlyMap<string, string>): Promise<void> {
    await this.ports.memory.addSeen(run, 'images', images);
    await this.ports.memory.addSeen(run, 'queries', queries);
  }
}

interface RememberedHit {
  readonly imageUrl: string;
  readonly sourcePageUrl?: string;
}

/** The hits of a query already run in this run (`seen:queries`), when they cover `limit` images. */
function rememberedHits(stored: string | undefined, limit: number): readonly RememberedHit[] | undefined {
  if (stored === undefined) return undefined;
  try {
    const parsed = JSON.parse(stored) as { limit?: unknown; hits?: unknown };
    if (typeof parsed.limit !== 'number' || parsed.limit < limit || !Array.isArray(parsed.hits)) return undefined;
    return (parsed.hits as RememberedHit[]).slice(0, limit);
  } catch {
    return undefined;
  }
}

function signal(request: ObserveRequest): { signal?: AbortSignal } {
  return request.signal === undefined ? {} : { signal: request.signal };
}
