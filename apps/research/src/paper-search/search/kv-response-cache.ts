import { gunzipSync, gzipSync } from 'node:zlib';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { KV_BUCKETS } from '@openpaw/messaging';
import type { CachedResponse, ProviderLogger, SharedResponseCache, SharedResponses } from '@openpaw/providers';
import { kvBucketHandle } from './kv-bucket-handle.js';

/**
 * The bucket of the scholarly search results shared by research's replicas, provisioned with the
 * platform's other buckets (`KV_BUCKETS`); its TTL is the longest a result is kept, its value bound
 * the largest result stored.
 */
export const SCHOLARLY_RESPONSES_BUCKET = KV_BUCKETS.scholarlyResponses.name;
export const SCHOLARLY_RESPONSE_MAX_BYTES = KV_BUCKETS.scholarlyResponses.maxValueBytes;

/**
 * Search results in a JetStream KV bucket, one key per normalised request (`responseCacheKey`), each
 * value the gzipped JSON of the result and its expiry. A result whose value would pass the bucket's
 * value bound is not stored (each replica keeps it in process only); a value that cannot be read is a
 * miss.
 */
export class KvResponseCache implements SharedResponseCache {
  private readonly kv: () => Promise<KV>;

  /** `bucket`: the KV, or how to open it (on first use; a failed open is retried on the next). */
  constructor(
    bucket: KV | (() => Promise<KV>),
    private readonly maxValueBytes: number = SCHOLARLY_RESPONSE_MAX_BYTES,
    private readonly onTooLarge: (key: string, bytes: number) => void = () => undefined,
  ) {
    this.kv = kvBucketHandle(bucket);
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const entry = await (await this.kv()).get(key);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    return decode(entry.value);
  }

  async set(key: string, response: CachedResponse): Promise<void> {
    const value = gzipSync(JSON.stringify(response));
    if (value.byteLength > this.maxValueBytes) {
      this.onTooLarge(key, value.byteLength);
      return;
    }
    await (await this.kv()).put(key, value);
  }
}

function decode(value: Uint8Array): CachedResponse | undefined {
  try {
    const parsed: unknown = JSON.parse(gunzipSync(value).toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { expiresAtMs, result } = parsed as Partial<CachedResponse>;
    if (typeof expiresAtMs !== 'number' || typeof result !== 'object' || result === null || !Array.isArray(result.works)) return undefined;
    return { expiresAtMs, result };
  } catch {
    return undefined;
  }
}

/**
 * The research service's shared search results, in the provisioned bucket (bound on first use; never
 * created here). While JetStream cannot be reached or the bucket is not provisioned yet, each replica
 * fetches and caches in process, and the log says so once.
 */
export function scholarlyResponses(nc: NatsConnection, logger: ProviderLogger): SharedResponses {
  let warned = false;
  return {
    cache: new KvResponseCache(
      () => new Kvm(nc).open(SCHOLARLY_RESPONSES_BUCKET),
      SCHOLARLY_RESPONSE_MAX_BYTES,
      (key, bytes) => logger.info({ bucket: SCHOLARLY_RESPONSES_BUCKET, key, bytes, maxBytes: SCHOLARLY_RESPONSE_MAX_BYTES }, 'scholarly result too large to share; cached in process only'),
    ),
    onUnavailable: (error) => {
      if (warned) return;
      warned = true;
      logger.warn({ bucket: SCHOLARLY_RESPONSES_BUCKET, error: error instanceof Error ? error.message : String(error) }, 'scholarly results are cached per process: the shared bucket cannot be used');
    },
  };
}
