import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { whenJetStreamAnswers } from '@openpaw/messaging';
import { believed, type CachedEdge, DEFAULT_REFUTATION_TTL_MS, type EvidenceCache, type EvidenceLifetimes, keyOf, pairKey, type StoredEvidence } from '../domain/evidence-cache.js';
import { getJson, putJson } from './kv-json.js';
import { DEFAULT_EVIDENCE_CACHE_TTL_MS, EVIDENCE_CACHE_BUCKET, keyToken } from './kv-keys.js';

function edgeKey(recognizer: string, [a, b]: readonly [string, string]): string {
  return `edge.${keyToken(recognizer)}.${keyToken(a)}.${keyToken(b)}`;
}

/**
 * The evidence cache shared by every run, in a JetStream KV bucket whose TTL (default 24 h) is the life
 * of a confirmation; a refutation is believed for `refutationTtlMs` (default 1 h) after it was written.
 */
export class KvEvidenceCache implements EvidenceCache {
  private constructor(
    private readonly kv: KV,
    private readonly lifetimes: EvidenceLifetimes,
  ) {}

  static async open(nc: NatsConnection, options: { readonly bucket?: string; readonly ttlMs?: number; readonly refutationTtlMs?: number; readonly now?: () => number } = {}): Promise<KvEvidenceCache> {
    const bucket = options.bucket ?? EVIDENCE_CACHE_BUCKET;
    const kv = await whenJetStreamAnswers(`bucket ${bucket}`, () => new Kvm(nc).create(bucket, { ttl: options.ttlMs ?? DEFAULT_EVIDENCE_CACHE_TTL_MS, history: 1 }));
    return new KvEvidenceCache(kv, { refutationTtlMs: options.refutationTtlMs ?? DEFAULT_REFUTATION_TTL_MS, now: options.now ?? Date.now });
  }

  async get(recognizer: string, fromId: string, toId: string): Promise<CachedEdge | undefined> {
    return believed(await getJson<StoredEvidence>(this.kv, edgeKey(recognizer, pairKey(fromId, toId))), this.lifetimes);
  }

  put(recognizer: string, entry: CachedEdge): Promise<void> {
    return putJson(this.kv, edgeKey(recognizer, keyOf(entry)), { entry, storedAt: this.lifetimes.now() } satisfies StoredEvidence);
  }
}
