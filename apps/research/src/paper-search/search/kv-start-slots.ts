import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { KV_BUCKETS } from '@openpaw/messaging';
import type { ProviderLogger, SharedLimit, SharedStartSlots } from '@openpaw/providers';
import { kvBucketHandle } from './kv-bucket-handle.js';

/**
 * The bucket of the scholarly sources' shared request starts (one key per source), provisioned with
 * the platform's other buckets (`KV_BUCKETS`, at the replicas ops set); a key unused for its TTL (a
 * minute) expires: a source idle that long has no start to space from.
 */
export const SCHOLARLY_START_SLOTS_BUCKET = KV_BUCKETS.scholarlyStartSlots.name;

/**
 * Request starts shared by every replica through a JetStream KV bucket: the key of a source holds the
 * next free start (ms since the epoch); a reservation takes it by compare-and-set (`create` when
 * absent, `update` at the read revision), so two replicas never take the same slot. Replicas' clocks
 * are assumed in step (NTP); a skew of a few ms shifts a slot by as much.
 */
export class KvStartSlots implements SharedStartSlots {
  private readonly kv: () => Promise<KV>;

  /** `bucket`: the KV, or how to open it (on the first reservation; a failed open is retried on the next). */
  constructor(
    bucket: KV | (() => Promise<KV>),
    private readonly attempts = 50,
  ) {
    this.kv = kvBucketHandle(bucket);
  }

  async reserve(key: string, notBeforeMs: number, intervalMs: number): Promise<number> {
    const kv = await this.kv();
    for (let attempt = 1; ; attempt += 1) {
      const entry = await kv.get(key);
      const live = entry !== null && entry.operation === 'PUT' ? entry : undefined;
      const nextFree = live === undefined ? Number.NEGATIVE_INFINITY : Number(live.string());
      const startAt = Math.max(notBeforeMs, Number.isFinite(nextFree) ? nextFree : Number.NEGATIVE_INFINITY);
      const value = String(startAt + intervalMs);
      try {
        if (live === undefined) await kv.create(key, value);
        else await kv.update(key, value, live.revision);
        return startAt;
      } catch (error) {
        // Another replica took the slot first: read again.
        if (attempt >= this.attempts) throw error;
      }
    }
  }
}

/**
 * The research service's shared request starts, in the provisioned bucket (bound on the first remote
 * request; never created here, so never at R1 beside an R3 cluster). While JetStream cannot be
 * reached or the bucket is not provisioned yet, each source keeps its per-process spacing and the log
 * says so, once; the bucket is used as soon as it answers.
 */
export function scholarlyStartSlots(nc: NatsConnection, logger: ProviderLogger): Omit<SharedLimit, 'key'> {
  let warned = false;
  return {
    slots: new KvStartSlots(() => new Kvm(nc).open(SCHOLARLY_START_SLOTS_BUCKET)),
    onUnavailable: (error) => {
      if (warned) return;
      warned = true;
      logger.warn({ bucket: SCHOLARLY_START_SLOTS_BUCKET, error: error instanceof Error ? error.message : String(error) }, 'scholarly request starts are spaced per process: the shared bucket cannot be used');
    },
  };
}
