import { gunzipSync, gzipSync } from 'node:zlib';
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { Bucket, type KV, Kvm } from '@nats-io/kv';
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
 * holds no value: one replica wins, the others wait for its result. A claim's value is its life (a
 * duration, not a time: no replica reads another's clock). A replica judges a claim lapsed once it has
 * seen that same revision for its life by its own monotonic clock (`ClaimSightings`), and takes it
 * over by an update conditional on the revision. A claimant removes its claim's own message when done
 * (a stream message delete by revision: it needs no room in a full bucket, where a delete marker is
 * refused, and cannot remove a claim that was taken over since).
 */
export class KvResponseCache implements SharedResponseCache {
  private readonly kv: () => Promise<KV>;
  private readonly maxValueBytes: number;
  private full = false;
  private readonly sightings = new ClaimSightings();

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
    const response = decode(entry.value);
    return response === undefined ? undefined : { ...response, revision: entry.revision };
  }

  async set(key: string, response: CachedResponse): Promise<void> {
    const value = gzipSync(JSON.stringify(response));
    if (value.byteLength > this.maxValueBytes) {
      this.options.onTooLarge?.(key, value.byteLength);
      return;
    }
    await this.write(() => this.kv().then((kv) => kv.put(key, value)), 'result');
  }

  async claim(key: string, lifeMs: number): Promise<FetchClaim> {
    const kv = await this.kv();
    const claimKey = `${CLAIM_PREFIX}${key}`;
    const value = JSON.stringify({ lifeMs });
    let revision: number | undefined;
    try {
      revision = await this.write(() => kv.create(claimKey, value), 'claim');
    } catch (error) {
      if (!isWrongLastSequence(error)) throw error;
      const standing = await kv.get(claimKey);
      // Gone again meanwhile (released): the next attempt creates it.
      if (standing === null) return HELD;
      if (standing.operation === 'PUT' && !this.sightings.lapsed(claimKey, standing.revision, claimLifeMs(standing.value) ?? lifeMs)) return HELD;
      try {
        revision = await this.write(() => kv.update(claimKey, value, standing.revision), 'claim');
      } catch (takeover) {
        if (isWrongLastSequence(takeover)) return HELD;
        throw takeover;
      }
    }
    this.sightings.forget(claimKey);
    // A full bucket records no claim: fetch without one (the others do the same).
    if (revision === undefined) return { outcome: 'fetch', release: () => Promise.resolve() };
    const held = revision;
    return { outcome: 'fetch', release: () => removeRevision(kv, claimKey, held) };
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

/** A stored claim's life, as its claimant wrote it; undefined when it cannot be read (the reader's own life is used). */
function claimLifeMs(value: Uint8Array): number | undefined {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(value));
    const lifeMs = typeof parsed === 'object' && parsed !== null ? (parsed as { lifeMs?: unknown }).lifeMs : undefined;
    return typeof lifeMs === 'number' && Number.isFinite(lifeMs) && lifeMs >= 0 ? lifeMs : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the claim at `revision` (only that one: a claim taken over since is another revision), best
 * effort. A stream message delete writes nothing, so it works in a full bucket; where the KV is not a
 * JetStream bucket handle, or the delete is refused, a delete marker conditional on the revision. A
 * claim that cannot be removed either way lapses by itself.
 */
async function removeRevision(kv: KV, key: string, revision: number): Promise<void> {
  if (kv instanceof Bucket) {
    const removed = await kv.jsm.streams.deleteMessage(kv.stream, revision, false).catch(() => false);
    if (removed) return;
  }
  await kv.delete(key, { previousSeq: revision }).catch(() => undefined);
}

/**
 * When this replica first saw each standing claim (key and revision), by its own monotonic clock: a
 * claim seen unchanged for its life has lapsed (its claimant is slow or gone). Comparing only this
 * process's own readings, the judgement holds whatever the replicas' and the server's clocks say.
 * A replica that first sees a claim late waits its whole life from then (at most twice the life from
 * its creation). Bounded: the oldest sightings are dropped past `maxSightings`.
 */
export class ClaimSightings {
  private readonly seen = new Map<string, { readonly revision: number; readonly firstSeenMs: number }>();

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly maxSightings = 1_000,
  ) {}

  lapsed(key: string, revision: number, lifeMs: number): boolean {
    const now = this.now();
    const sighting = this.seen.get(key);
    if (sighting !== undefined && sighting.revision === revision) return now - sighting.firstSeenMs >= lifeMs;
    this.seen.delete(key);
    this.seen.set(key, { revision, firstSeenMs: now });
    while (this.seen.size > this.maxSightings) this.seen.delete(this.seen.keys().next().value!);
    return lifeMs <= 0;
  }

  forget(key: string): void {
    this.seen.delete(key);
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
export function scholarlyResponses(nc: NatsConnection, logger: ProviderLogger, settings: Pick<SharedResponses, 'claimMs'> = {}): SharedResponses {
  let warned = false;
  const bucket = { bucket: SCHOLARLY_RESPONSES_BUCKET, maxBytes: KV_BUCKETS.scholarlyResponses.maxBytes };
  return {
    ...settings,
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
