import { edgeConfidence } from '@openpaw/contracts';
import type { VerifiedEdge } from './edge-verification.js';

/**
 * Verified and refuted edges shared across runs (beyond the spec): a later run that needs the same
 * pair spends no search or recognition on it. Keyed by the recogniser's identity (its celebrity ids and
 * confidences mean nothing to another recogniser) and the unordered pair of ids. Entries expire: a
 * confirmation with the store's TTL; a refutation sooner (`refutationTtlMs`), since absence of evidence
 * is the weaker claim and the web gains photos.
 */
export type CachedEdge =
  | { readonly status: 'verified'; readonly edge: VerifiedEdge }
  /**
   * No image showed both at `threshold` or above among the first `imagesPerQuery` hits of each of
   * `queries`, with every image found fetched and read (not written when a budget cut the search short or
   * an image could not be used). It answers only a search of those queries (or some of them, no deeper):
   * other queries find other photos.
   */
  | { readonly status: 'refuted'; readonly ids: readonly [string, string]; readonly threshold: number; readonly queries: readonly string[]; readonly imagesPerQuery: number };

/** The search a VerifyEdge would run: what a cached refutation must have covered to answer it. */
export interface AskedSearch {
  readonly queries: readonly string[];
  readonly imagesPerQuery: number;
}

export interface EvidenceCache {
  /** `recognizer`: the identity of the recogniser whose ids these are (`CelebrityRecognizer.provider`). */
  get(recognizer: string, fromId: string, toId: string): Promise<CachedEdge | undefined>;
  put(recognizer: string, entry: CachedEdge): Promise<void>;
  /** Removes every entry (verified or refuted) with this person in it (a takedown); how many. */
  removePerson(recognizer: string, celebrityId: string): Promise<number>;
}

/** An entry as a store keeps it: with the time it was written, for the refutations' shorter life. */
export interface StoredEvidence {
  readonly entry: CachedEdge;
  /** Milliseconds since the epoch. */
  readonly storedAt: number;
}

export interface EvidenceLifetimes {
  /** How long a refutation is believed (shorter than the store's TTL, which confirmations live by). */
  readonly refutationTtlMs: number;
  readonly now: () => number;
}

/** A stored entry still believed, or undefined (an expired refutation, or something not written by this code). */
export function believed(stored: StoredEvidence | undefined, lifetimes: EvidenceLifetimes): CachedEdge | undefined {
  if (stored?.entry === undefined || typeof stored.storedAt !== 'number') return undefined;
  if (stored.entry.status === 'refuted' && lifetimes.now() - stored.storedAt >= lifetimes.refutationTtlMs) return undefined;
  return stored.entry;
}

/** Default life of a cached refutation: an hour (confirmations live by the store's TTL, a day by default). */
export const DEFAULT_REFUTATION_TTL_MS = 60 * 60_000;

export function pairKey(a: string, b: string): readonly [string, string] {
  return a < b ? [a, b] : [b, a];
}

export function keyOf(entry: CachedEdge): readonly [string, string] {
  return entry.status === 'verified' ? pairKey(entry.edge.from.celebrityId, entry.edge.to.celebrityId) : pairKey(...entry.ids);
}

/** A verified edge read for (from, to): flipped when it was stored the other way round. */
export function oriented(edge: VerifiedEdge, fromId: string): VerifiedEdge {
  if (edge.from.celebrityId === fromId) return edge;
  return {
    from: edge.to,
    to: edge.from,
    edgeConf: edge.edgeConf,
    evidence: edge.evidence.map((e) => ({ ...e, confidenceFrom: e.confidenceTo, confidenceTo: e.confidenceFrom })),
  };
}

/**
 * A kept edge without the photos that show a person taken down (a third person in the picture, named by
 * its `shows`), its confidence taken again from the photos left; undefined when none is left at
 * `threshold`: the edge must then be searched again. A photo kept before `shows` existed stays.
 */
export function withoutPicturesOf(edge: VerifiedEdge, takenDown: ReadonlySet<string>, threshold: number): VerifiedEdge | undefined {
  const evidence = edge.evidence.filter((image) => !(image.shows ?? []).some((id) => takenDown.has(id)));
  if (evidence.length === edge.evidence.length) return edge;
  if (evidence.length === 0) return undefined;
  const edgeConf = edgeConfidence(evidence);
  return edgeConf < threshold ? undefined : { ...edge, edgeConf, evidence };
}

/**
 * What the cache says about (from, to) at `threshold`: a verified edge whose confidence reaches the
 * threshold is verified; a refutation at a threshold at or below this one still holds (no image had
 * both even at the lower bar), but only for the search it made: every query asked among its queries, no
 * more hits each (a refutation written before it named its queries, or asked without a search, answers
 * nothing). Anything else is unknown and must be searched.
 */
export async function lookUp(cache: EvidenceCache, recognizer: string, fromId: string, toId: string, threshold: number, asked?: AskedSearch): Promise<CachedEdge | undefined> {
  const entry = await cache.get(recognizer, fromId, toId);
  if (entry === undefined) return undefined;
  if (entry.status === 'verified') return entry.edge.edgeConf >= threshold ? { status: 'verified', edge: oriented(entry.edge, fromId) } : undefined;
  const searched = new Set(Array.isArray(entry.queries) ? entry.queries : []);
  const covers = asked !== undefined && asked.queries.length > 0 && asked.queries.every((query) => searched.has(query)) && asked.imagesPerQuery <= (entry.imagesPerQuery ?? 0);
  return entry.threshold <= threshold && covers ? entry : undefined;
}

/** The cache in process memory, for tests and benches (the service uses the JetStream KV one). */
export class InMemoryEvidenceCache implements EvidenceCache {
  private readonly entries = new Map<string, StoredEvidence>();
  private readonly lifetimes: EvidenceLifetimes;

  constructor(lifetimes: Partial<EvidenceLifetimes> = {}) {
    this.lifetimes = { refutationTtlMs: lifetimes.refutationTtlMs ?? DEFAULT_REFUTATION_TTL_MS, now: lifetimes.now ?? Date.now };
  }

  get(recognizer: string, fromId: string, toId: string): Promise<CachedEdge | undefined> {
    return Promise.resolve(believed(this.entries.get([recognizer, ...pairKey(fromId, toId)].join('|')), this.lifetimes));
  }

  put(recognizer: string, entry: CachedEdge): Promise<void> {
    this.entries.set([recognizer, ...keyOf(entry)].join('|'), { entry, storedAt: this.lifetimes.now() });
    return Promise.resolve();
  }

  removePerson(recognizer: string, celebrityId: string): Promise<number> {
    let removed = 0;
    for (const [key, stored] of this.entries) {
      if (key.startsWith(`${recognizer}|`) && keyOf(stored.entry).includes(celebrityId) && this.entries.delete(key)) removed += 1;
    }
    return Promise.resolve(removed);
  }
}
