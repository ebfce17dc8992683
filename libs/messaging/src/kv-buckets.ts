import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { nanos } from '@nats-io/nats-core';
import type { ProvisionResult, StreamProvisionReport } from './provisioning.js';
import { DEFAULT_STREAM_SETTINGS, type StreamProvisionOptions } from './stream-settings.js';
import { whenJetStreamAnswers } from './jetstream-when-ready.js';

/**
 * The JetStream KV buckets of the platform, provisioned like the streams by their one owner (the
 * provisioning Job, or a service's bootstrap in `create-missing` mode) with the replicas ops set
 * (`OPENPAW_STREAM_REPLICAS`). A service only opens a bucket: it never creates one at R1 beside an
 * R3 cluster, where losing the one node that holds it stalls every run that reads it.
 * Bucket names are FROZEN: renaming one orphans what it holds.
 */
export interface KvBucketSpec {
  readonly name: string;
  /** Every key expires this long after its last write (the bucket stream's max age). */
  readonly ttlMs: number;
  /** Values kept per key. */
  readonly history: number;
  /** Who reads and writes it, and what losing it costs (for the runbook). */
  readonly purpose: string;
  /** The largest value JetStream accepts in it (the stream's max message size); unset, the server's max payload. */
  readonly maxValueBytes?: number;
  /** All it holds at most; a write that would pass it is refused (KV discards new) until keys expire. */
  readonly maxBytes?: number;
}

const MINUTE = 60_000;

export const KV_BUCKETS = {
  commandReceipts: {
    name: 'openpaw_command_receipts',
    ttlMs: 24 * 60 * MINUTE,
    history: 1,
    purpose: 'services record when they pick a command up; the coordinator reads it when a step timer fires (best effort: a lost receipt only delays a timeout)',
  },
  visualRunMemory: {
    name: 'openpaw-visual-runs',
    ttlMs: 30 * MINUTE,
    history: 1,
    purpose: "visual-search's per-run memory (frontier, candidates, checked edges); losing it stalls a visual-degrees run until the bucket answers again",
  },
  visualEvidenceCache: {
    name: 'openpaw-visual-evidence',
    ttlMs: 24 * 60 * MINUTE,
    history: 1,
    purpose: "visual-search's shared evidence cache (recognitions, verified and refuted edges); a rebuildable cache",
  },
  scholarlyStartSlots: {
    name: 'scholarly-start-slots',
    ttlMs: MINUTE,
    history: 1,
    purpose: "research's next free request start per scholarly source, shared by its replicas; while it cannot be used each replica spaces its own requests (a source may see a few replicas' rate)",
  },
  scholarlyResponses: {
    name: 'scholarly-responses',
    // The longest a search result is answered (OPENPAW_SCHOLARLY_CACHE_TTL_MS caps it lower).
    ttlMs: 10 * MINUTE,
    history: 1,
    purpose: "research's scholarly search results (OpenAlex, arXiv, Crossref), shared by its replicas so an identical search is fetched once; a rebuildable cache: while it cannot be used each replica fetches",
    maxValueBytes: 256 * 1024,
    maxBytes: 256 * 1024 * 1024,
  },
} as const satisfies Record<string, KvBucketSpec>;

/** The stream JetStream keeps a KV bucket in. */
export function kvStreamName(bucket: string): string {
  return `KV_${bucket}`;
}

async function streamInfoOrUndefined(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw error;
  }
}

const UNLIMITED = -1;

/** The stream limits a bucket's spec sets: its TTL, largest value and total size (-1, JetStream's "unlimited", where the spec sets none). */
function bucketLimits(spec: KvBucketSpec): { readonly max_age: number; readonly max_msg_size: number; readonly max_bytes: number } {
  return { max_age: nanos(spec.ttlMs), max_msg_size: spec.maxValueBytes ?? UNLIMITED, max_bytes: spec.maxBytes ?? UNLIMITED };
}

function bucketDrift(config: StreamConfig, spec: KvBucketSpec, replicas: number): string[] {
  const drift: string[] = [];
  if (config.num_replicas !== replicas) drift.push(`num_replicas is ${config.num_replicas}, configured ${replicas}`);
  for (const [field, wanted] of Object.entries(bucketLimits(spec)) as [keyof ReturnType<typeof bucketLimits>, number][]) {
    if (config[field] !== wanted) drift.push(`${field} is ${config[field]}, configured ${wanted}`);
  }
  return drift;
}

/**
 * Creates the bucket when missing, with the configured replicas; in `reconcile` mode brings an
 * existing bucket's TTL, value bound and size bound to the spec (a lower size bound drops the oldest
 * values, as JetStream does for any stream) and raises (never lowers, unless allowed) its replicas.
 */
export function ensureKvBucket(jsm: JetStreamManager, spec: KvBucketSpec, options: StreamProvisionOptions = {}): Promise<StreamProvisionReport> {
  const mode = options.mode ?? 'create-missing';
  const replicas = (options.settings ?? DEFAULT_STREAM_SETTINGS).replicas;
  if (mode === 'off') return Promise.resolve({ result: 'skipped', drift: [] });
  return whenJetStreamAnswers(`bucket ${spec.name}`, async (): Promise<StreamProvisionReport> => {
    const existing = await streamInfoOrUndefined(jsm, kvStreamName(spec.name));
    if (existing === undefined) {
      // Kvm.create binds to a bucket another instance created meanwhile instead of failing.
      await new Kvm(jsm.jetstream()).create(spec.name, {
        ttl: spec.ttlMs,
        history: spec.history,
        replicas,
        ...(spec.maxValueBytes === undefined ? {} : { maxValueSize: spec.maxValueBytes }),
        ...(spec.maxBytes === undefined ? {} : { max_bytes: spec.maxBytes }),
      });
      return { result: 'created', drift: [] };
    }
    const drift = bucketDrift(existing.config, spec, replicas);
    if (drift.length === 0) return { result: 'unchanged', drift };
    if (mode === 'create-missing') return { result: 'kept', drift };
    const wanted = {
      ...bucketLimits(spec),
      num_replicas: options.allowReplicaDecrease === true ? replicas : Math.max(replicas, existing.config.num_replicas),
    };
    const kept = bucketDrift({ ...existing.config, ...wanted }, spec, replicas);
    if ((Object.keys(wanted) as (keyof typeof wanted)[]).every((field) => wanted[field] === existing.config[field])) return { result: 'kept', drift: kept };
    // JetStream refuses a duplicate window longer than the max age (KV create sets it to the smaller of the two).
    await jsm.streams.update(kvStreamName(spec.name), { ...existing.config, ...wanted, duplicate_window: Math.min(existing.config.duplicate_window, wanted.max_age) });
    const result: ProvisionResult = 'updated';
    return { result, drift: kept };
  });
}

/** Provisions every bucket of `KV_BUCKETS`; reports keyed by the bucket's stream name. */
export async function provisionKvBuckets(jsm: JetStreamManager, options: StreamProvisionOptions = {}): Promise<Record<string, StreamProvisionReport>> {
  const reports: Record<string, StreamProvisionReport> = {};
  for (const spec of Object.values(KV_BUCKETS)) reports[kvStreamName(spec.name)] = await ensureKvBucket(jsm, spec, options);
  return reports;
}

export interface OpenKvBucketOptions {
  /** Called while the bucket does not exist yet (default: a JSON warning on stderr, first time and every tenth). */
  readonly onMissing?: (attempt: number) => void;
  readonly signal?: AbortSignal;
}

class KvBucketMissing extends Error {}

function warnMissing(bucket: string): (attempt: number) => void {
  return (attempt) => {
    if (attempt === 1 || attempt % 10 === 0) {
      process.stderr.write(
        `${JSON.stringify({ level: 'warn', time: Date.now(), msg: 'KV bucket missing; waiting for provisioning (node dist/tools/provision.js, OPENPAW_STREAMS_PROVISION)', bucket, attempt })}\n`,
      );
    }
  };
}

/**
 * Opens an existing bucket, waiting (not ready, never exiting) while JetStream is unavailable or the
 * bucket has not been provisioned yet. Never creates it: see `KV_BUCKETS`.
 */
export async function openKvBucket(jsm: JetStreamManager, bucket: string, options: OpenKvBucketOptions = {}): Promise<KV> {
  const onMissing = options.onMissing ?? warnMissing(bucket);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await whenJetStreamAnswers(`bucket ${bucket}`, async () => {
        const info = await streamInfoOrUndefined(jsm, kvStreamName(bucket));
        if (info === undefined) throw new KvBucketMissing(`KV bucket ${bucket} does not exist`);
        return new Kvm(jsm.jetstream()).open(bucket, { allow_direct: info.config.allow_direct });
      }, { ...(options.signal === undefined ? {} : { signal: options.signal }) });
    } catch (error) {
      if (!(error instanceof KvBucketMissing) || options.signal?.aborted === true) throw error;
      onMissing(attempt);
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** Math.min(attempt - 1, 5))));
    }
  }
}
