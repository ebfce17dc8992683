import type { VerifiedEdge } from './edge-verification.js';

/**
 * Verified and refuted edges shared across runs (beyond the spec): a later run that needs the same
 * pair spends no search or recognition on it. Keyed by the unordered pair of celebrity ids. Entries
 * expire (the store's TTL): the web changes, and a refuted pair may gain a photo.
 */
export type CachedEdge =
  | { readonly status: 'verified'; readonly edge: VerifiedEdge }
  /** No image showed both at `threshold` or above (not written when a budget cut the search short). */
  | { readonly status: 'refuted'; readonly ids: readonly [string, string]; readonly threshold: number };

export interface EvidenceCache {
  get(fromId: string, toId: string): Promise<CachedEdge | undefined>;
  put(entry: CachedEdge): Promise<void>;
}

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
 * What the cache says about (from, to) at `threshold`: a verified edge whose confidence reaches the
 * threshold is verified; a refutation at a threshold at or below this one still holds (no image had
 * both even at the lower bar). Anything else is unknown and must be searched.
 */
export async function lookUp(cache: EvidenceCache, fromId: string, toId: string, threshold: number): Promise<CachedEdge | undefined> {
  const entry = await cache.get(fromId, toId);
  if (entry === undefined) return undefined;
  if (entry.status === 'verified') return entry.edge.edgeConf >= threshold ? { status: 'verified', edge: oriented(entry.edge, fromId) } : undefined;
  return entry.threshold <= threshold ? entry : undefined;
}

/** The cache in process memory, for tests and benches (the service uses the JetStream KV one). */
export class InMemoryEvidenceCache implements EvidenceCache {
  private readonly entries = new Map<string, CachedEdge>();

  get(fromId: string, toId: string): Promise<CachedEdge | undefined> {
    return Promise.resolve(this.entries.get(pairKey(fromId, toId).join('|')));
  }

  put(entry: CachedEdge): Promise<void> {
    this.entries.set(keyOf(entry).join('|'), entry);
    return Promise.resolve();
  }
}
