import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { openKvBucket } from '@openpaw/messaging';
import { believed, type CachedEdge, DEFAULT_REFUTATION_TTL_MS, type EvidenceCache, type EvidenceLifetimes, keyOf, pairKey, type StoredEvidence } from '../domain/evidence-cache.js';
import { getJson, putJson } from './kv-json.js';
import { EVIDENCE_CACHE_BUCKET, keyToken } from './kv-keys.js';

function edgeKey(recognizer: string, [a, b]: readonly [string, string]): string {
  return `edge.${keyToken(recognizer)}.${keyToken(a)}.${keyToken(b)}`;
}

/**
 * The evidence cache shared by every run, in a JetStream KV bucket whose TTL (24 h, `KV_BUCKETS`) is the life
 * of a confirmation; a refutation is believed for `refutationTtlMs` (default 1 h) after it was written.
 */
export class KvEvidenceCache implements EvidenceCache {
  private constructor(
    private readonly kv: KV,
    private readonly lifetimes: EvidenceLifetimes,
  ) {}

  static async open(jsm: JetStreamManager, options: { readonly bucket?: string; readonly refutationTtlMs?: number; readonly now?: () => number } = {}): Promise<KvEvidenceCache> {
    const kv = await openKvBucket(jsm, options.bucket ?? EVIDENCE_CACHE_BUCKET);
    return new KvEvidenceCache(kv, { refutationTtlMs: options.refutationTtlMs ?? DEFAULT_REFUTATION_TTL_MS, now: options.now ?? Date.now });
  }

  async get(recognizer: string, fromId: string, toId: string): Promise<CachedEdge | undefined> {
    return believed(await getJson<StoredEvidence>(this.kv, edgeKey(recognizer, pairKey(fromId, toId))), this.lifetimes);
  }

  put(recognizer: string, entry: CachedEdge): Promise<void> {
    return putJson(this.kv, edgeKey(recognizer, keyOf(entry)), { entry, storedAt: this.lifetimes.now() } satisfies StoredEvidence);
  }

  /**
   * Purges (no history kept) every pair with the person, on either side of the key: two listings, one
   * filter each (nats-server 2.9 has no multi-filter consumers).
   */
  async removePerson(recognizer: string, celebrityId: string): Promise<number> {
    const r = keyToken(recognizer);
    const id = keyToken(celebrityId);
    const keys = new Set<string>();
    for (const filter of [`edge.${r}.${id}.*`, `edge.${r}.*.${id}`]) {
      for await (const key of await this.kv.keys(filter)) keys.add(key);
    }
    for (const key of keys) await this.kv.purge(key);
    return keys.size;
  }
}
