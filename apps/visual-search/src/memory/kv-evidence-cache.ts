import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { whenJetStreamAnswers } from '@openpaw/messaging';
import { type CachedEdge, type EvidenceCache, keyOf, pairKey } from '../domain/evidence-cache.js';
import { getJson, putJson } from './kv-json.js';
import { DEFAULT_EVIDENCE_CACHE_TTL_MS, EVIDENCE_CACHE_BUCKET, keyToken } from './kv-keys.js';

function edgeKey([a, b]: readonly [string, string]): string {
  return `edge.${keyToken(a)}.${keyToken(b)}`;
}

/** The evidence cache shared by every run, in a JetStream KV bucket with a TTL (default 24 h). */
export class KvEvidenceCache implements EvidenceCache {
  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, options: { readonly bucket?: string; readonly ttlMs?: number } = {}): Promise<KvEvidenceCache> {
    const bucket = options.bucket ?? EVIDENCE_CACHE_BUCKET;
    const kv = await whenJetStreamAnswers(`bucket ${bucket}`, () => new Kvm(nc).create(bucket, { ttl: options.ttlMs ?? DEFAULT_EVIDENCE_CACHE_TTL_MS, history: 1 }));
    return new KvEvidenceCache(kv);
  }

  get(fromId: string, toId: string): Promise<CachedEdge | undefined> {
    return getJson<CachedEdge>(this.kv, edgeKey(pairKey(fromId, toId)));
  }

  put(entry: CachedEdge): Promise<void> {
    return putJson(this.kv, edgeKey(keyOf(entry)), entry);
  }
}
