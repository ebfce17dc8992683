import { type KV, type KvEntry, Kvm } from '@nats-io/kv';
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
 * Request starts shared by every replica through a JetStream KV bucket, timed by the NATS server's
 * stamps, never a replica's clock. The key of a source holds the last reservation: the next free
 * start it found (server time), the delay it asked from its write, and the spacing after it. Its
 * start is the later of that next free start and its own write's stamp plus the delay; the next free
 * start after it is that start plus the spacing. A reservation takes the key by compare-and-set
 * (`create` when absent, `update` at the read revision), so two replicas never take the same slot,
 * then reads the key's stamp again to answer the wait from it. (An R3 bucket is stamped by its
 * stream leader; after a leader change the servers' clocks must agree, as NATS's own ages assume.)
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

  async reserve(key: string, notBeforeInMs: number, intervalMs: number): Promise<number> {
    const kv = await this.kv();
    for (let attempt = 1; ; attempt += 1) {
      const entry = await kv.get(key);
      const live = entry !== null && entry.operation === 'PUT' ? entry : undefined;
      const nextFree = live === undefined ? null : nextFreeAfter(live);
      const value = JSON.stringify({ after: nextFree, delayMs: Math.max(0, notBeforeInMs), intervalMs } satisfies Reservation);
      let revision: number;
      try {
        revision = live === undefined ? await kv.create(key, value) : await kv.update(key, value, live.revision);
      } catch (error) {
        // Another replica took the slot first: read again.
        if (attempt >= this.attempts) throw error;
        continue;
      }
      // The key keeps one revision, so another replica's later reservation may already have replaced this
      // one. Either way the stamp read is at or after this write and at or before now: the start (the later
      // of the free one and the stamp plus the delay) and the wait from now counted by it are late, never early.
      const latest = await kv.get(key);
      if (latest === null || latest.revision < revision) throw new Error(`start slot ${key}: the reservation at revision ${revision} cannot be read back`);
      const stamp = latest.created.getTime();
      const start = Math.max(nextFree ?? Number.NEGATIVE_INFINITY, stamp + Math.max(0, notBeforeInMs));
      if (latest.revision === revision) await settle(kv, key, revision, start + intervalMs);
      return Math.max(0, start - stamp);
    }
  }
}

/**
 * Replaces this reservation, while it is still the key's last, by the next free start it leaves, as a
 * plain number in the server's time: the form a replica of the earlier release reads (it takes
 * anything else as a free slot, and would start at once). So during a rolling deploy an old replica
 * misses only a reservation caught between its two writes (a round trip), or one whose second write
 * failed. A failure here changes nothing for this release (the first write holds the reservation),
 * so it is not an error: another replica reserving meanwhile (the revision moved) is the usual case.
 */
async function settle(kv: KV, key: string, revision: number, nextFreeStart: number): Promise<void> {
  try {
    await kv.update(key, String(nextFreeStart), revision);
  } catch {
    // Best effort, as above.
  }
}

/** What a reservation stores (server times in ms since the epoch, by the NATS server's stamps). */
interface Reservation {
  /** The next free start the reserver found, or null when the key was free. */
  readonly after: number | null;
  /** The wait the reserver asked, from its write. */
  readonly delayMs: number;
  /** The spacing after its start. */
  readonly intervalMs: number;
}

/**
 * The next free start after a stored reservation, in the server's time. A plain number is either a
 * reservation settled by this release (`settle`: server time) or one written by a replica of the
 * earlier release (the next free start by its own clock); both are read as they mean.
 */
function nextFreeAfter(entry: KvEntry): number | null {
  const text = entry.string();
  if (/^-?\d+(?:\.\d+)?$/.test(text.trim())) return Number(text);
  let stored: Partial<Reservation>;
  try {
    stored = JSON.parse(text) as Partial<Reservation>;
  } catch {
    return null; // unreadable (not ours): the key is taken over as free, by compare-and-set like any other
  }
  if (typeof stored !== 'object' || stored === null || typeof stored.delayMs !== 'number' || typeof stored.intervalMs !== 'number') return null;
  const start = Math.max(typeof stored.after === 'number' ? stored.after : Number.NEGATIVE_INFINITY, entry.created.getTime() + stored.delayMs);
  return start + stored.intervalMs;
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
