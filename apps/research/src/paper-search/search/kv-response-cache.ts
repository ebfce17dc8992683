import { gunzipSync, gzipSync } from 'node:zlib';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { KV_BUCKETS } from '@openpaw/messaging';
import type { CachedResponse, FetchClaim, ProviderLogger, SharedResponseCache, SharedResponses } from '@openpaw/providers';
import { kvBucketHandle } from './kv-bucket-handle.js';

/**
 * The bucket of the scholarly search results shared by research's replicas, provisioned with the
 * platform's other buckets (`KV_BUCKETS`); its TTL is the longest a result is kept, its value bound
 * the largest result stored.
 */
export const SCHOLARLY_RESPONSES_BUCKET = KV_BUCKETS.scholarlyResponses.name;
export const SCHOLARLY_RESPONSE_MAX_BYTES = KV_BUCKETS.scholarlyResponses.maxValueBytes;

/** What a `KvResponseCache` tells its owner about the bucket (each optional). */
export interface KvResponseCacheOptions {
  /** The largest value stored (default the bucket's bound): a larger result is not shared. */
  readonly maxValueBytes?: number;
  readonly onTooLarge?: (key: string, bytes: number) => void;
  /** The bucket refused a write because it is full: once, until a write is accepted again (`onWritable`). */
  readonly onFull?: () => void;
  readonly onWritable?: () => void;
}

/** Claim keys beside the result keys (`claim.<source>.<hash>`): a claim is not a result. */
const CLAIM_PREFIX = 'claim.';

/**
 * Search results in a JetStream KV bucket, one key per normalised request (`responseCacheKey`), each
 * value the gzipped JSON of the result and its expiry. A result whose value would pass the bucket's
 * value bound is not stored (each replica keeps it in process only); a value that cannot be read is a
 * miss. A full bucket (its byte bound reached: JetStream refuses new values until old ones expire)
 * still answers reads; a result it refuses is kept in process, and `onFull` hears it once.
 *
 * Fetch claims (`claim`) are KV creates of `claim.<key>`, which JetStream applies only when the key
 * holds no value: one replica wins, the others wait for its result. A claim's value is when it lapses
 * (the claimant's clock); a lapsed claim is taken over by an update conditional on its revision, and a
 * claimant deletes its claim, conditionally too, when it is done.
 */
export class KvResponseCache implements SharedResponseCache {
  private readonly kv: () => Promise<KV>;
  private readonly maxValueBytes: number;
  private full = false;

  /** `bucket`: the KV, or how to open it (on first use; a failed open is retried on the next). */
  constructor(
    bucket: KV | (() => Promise<KV>),
    private readonly options: KvResponseCacheOptions = {},
  ) {
    this.kv = kvBucketHandle(bucket);
    this.maxValueBytes = options.maxValueBytes ?? SCHOLARLY_RESPONSE_MAX_BYTES;
  }

  async get(key: string): Promise<CachedResponse | undefined> {
    const entry = await (await this.kv()).get(key);
    if (entry === null || entry.operation !== 'PUT') return undefined;
    return decode(entry.value);
  }

  async set(key: string, response: CachedResponse): Promise<void> {
    const value = gzipSync(JSON.stringify(response));
    if (value.byteLength > this.maxValueBytes) {
      this.options.onTooLarge?.(key, value.byteLength);
      return;
    }
    await this.write(() => this.kv().then((kv) => kv.put(key, value)), 'result');
  }

  async claim(key: string, nowMs: number, untilMs: number): Promise<FetchClaim> {
    const kv = await this.kv();
    const claimKey = `${CLAIM_PREFIX}${key}`;
    const value = JSON.stringify({ untilMs });
    let revision: number | undefined;
    try {
      revision = await this.write(() => kv.create(claimKey, value), 'claim');
    } catch (error) {
      if (!isWrongLastSequence(error)) throw error;
      const standing = await kv.get(claimKey);
      // Gone again meanwhile (released): the next attempt creates it.
      if (standing === null) return HELD;
      if (standing.operation === 'PUT' && claimLapsesAt(standing.value) > nowMs) return HELD;
      try {
        revision = await this.write(() => kv.update(claimKey, value, standing.revision), 'claim');
      } catch (takeover) {
        if (isWrongLastSequence(takeover)) return HELD;
        throw takeover;
      }
    }
    // A full bucket records no claim: fetch without one (the others do the same).
    if (revision === undefined) return { outcome: 'fetch', release: () => Promise.resolve() };
    const held = revision;
    return {
      outcome: 'fetch',
      // Only while still ours; a claim that cannot be deleted lapses by itself.
      release: () => kv.delete(claimKey, { previousSeq: held }).catch(() => undefined),
    };
  }

  /**
   * `put`'s revision, or undefined when the bucket is full (reported once, until a result is accepted
   * again: a small claim may fit where a result does not, so an accepted claim proves no room).
   */
  private async write(put: () => Promise<number>, what: 'result' | 'claim'): Promise<number | undefined> {
    try {
      const revision = await put();
      if (this.full && what === 'result') {
        this.full = false;
        this.options.onWritable?.();
      }
      return revision;
    } catch (error) {
      if (!isBucketFull(error)) throw error;
      if (!this.full) {
        this.full = true;
        this.options.onFull?.();
      }
      return undefined;
    }
  }
}

const HELD: FetchClaim = { outcome: 'held' };

/** JetStream's answer to a write into a stream at its byte bound with the discard-new policy of KV buckets. */
function isBucketFull(error: unknown): boolean {
  return error instanceof JetStreamApiError && /maximum bytes exceeded/i.test(error.message);
}

function isWrongLastSequence(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);
}

/** When a stored claim lapses; 0 (lapsed) when it cannot be read. */
function claimLapsesAt(value: Uint8Array): number {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(value));
    const untilMs = typeof parsed === 'object' && parsed !== null ? (parsed as { untilMs?: unknown }).untilMs : undefined;
    return typeof untilMs === 'number' ? untilMs : 0;
  } catch {
    return 0;
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
 * fetches and caches in process, and the log says so once. While the bucket is full each replica keeps
 * new results in process, and the log says so once (and again when it accepts them again).
 */
export function scholarlyResponses(nc: NatsConnection, logger: ProviderLogger): SharedResponses {
  let warned = false;
  const bucket = { bucket: SCHOLARLY_RESPONSES_BUCKET, maxBytes: KV_BUCKETS.scholarlyResponses.maxBytes };
  return {
    cache: new KvResponseCache(() => new Kvm(nc).open(SCHOLARLY_RESPONSES_BUCKET), {
      onTooLarge: (key, bytes) => logger.info({ bucket: SCHOLARLY_RESPONSES_BUCKET, key, bytes, maxBytes: SCHOLARLY_RESPONSE_MAX_BYTES }, 'scholarly result too large to share; cached in process only'),
      onFull: () => logger.warn(bucket, 'scholarly results bucket is full: new results are cached per process until older ones expire (stored ones are still shared)'),
      onWritable: () => logger.info(bucket, 'scholarly results bucket accepts new results again'),
    }),
    onUnavailable: (error) => {
      if (warned) return;
      warned = true;
      logger.warn({ bucket: SCHOLARLY_RESPONSES_BUCKET, error: error instanceof Error ? error.message : String(error) }, 'scholarly results are cached per process: the shared bucket cannot be used');
    },
  };
}
