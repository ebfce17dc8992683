import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { CRITICAL_LANE, laneDurableOf, SUBJECT_ROOT } from '@openpaw/contracts';
import {
  DEFAULT_STREAM_SETTINGS,
  STREAM_KEYS,
  type StreamLimits,
  type StreamProvisionMode,
  type StreamProvisionOptions,
  type StreamSettings,
  type StreamStorage,
} from './stream-settings.js';
import { whenJetStreamAnswers } from './jetstream-when-ready.js';
import { provisionKvBuckets } from './kv-buckets.js';

/** What provisioning did to one stream or consumer. */
export type ProvisionResult = 'created' | 'updated' | 'unchanged';

/**
 * What provisioning did to one stream: `kept` means the stream exists and differs from the
 * configuration, and was deliberately left as it is; `drift` lists what still differs after this
 * run (after `updated` too: what the owner may not change, e.g. replicas above the configuration);
 * `skipped` is mode `off`.
 */
export interface StreamProvisionReport {
  readonly result: ProvisionResult | 'kept' | 'skipped';
  readonly drift: readonly string[];
}

/** The settings of one stream, resolved from the stream settings. */
export interface StreamSpec extends StreamLimits {
  readonly name: string;
  readonly subjects: readonly string[];
  readonly duplicateWindowMs: number;
  readonly replicas: number;
  readonly storage: StreamStorage;
}

/** The three OpenPaw streams (names and subjects FROZEN in `@openpaw/contracts`) with the configured settings. */
export function streamSpecs(settings: StreamSettings = DEFAULT_STREAM_SETTINGS): readonly StreamSpec[] {
  return STREAM_KEYS.map(([key, stream]) => ({
    name: stream.name,
    subjects: stream.subjects,
    duplicateWindowMs: settings.duplicateWindowMs,
    replicas: settings.replicas,
    storage: settings.storage,
    ...settings.limits[key],
  }));
}

/**
 * Provisions the three streams and the platform's KV buckets (`KV_BUCKETS`, reported under their
 * `KV_<bucket>` stream) in the given mode (default `create-missing`: a service's bootstrap creates
 * what is missing and changes nothing that exists). See `StreamProvisionMode`.
 */
export async function provisionStreams(
  jsm: JetStreamManager,
  options: StreamProvisionOptions = {},
): Promise<Record<string, StreamProvisionReport>> {
  const mode = options.mode ?? 'create-missing';
  const reports: Record<string, StreamProvisionReport> = {};
  for (const spec of streamSpecs(options.settings)) {
    reports[spec.name] =
      mode === 'off' ? { result: 'skipped', drift: [] } : await ensureStream(jsm, spec, { mode, allowReplicaDecrease: options.allowReplicaDecrease ?? false });
  }
  return { ...reports, ...(await provisionKvBuckets(jsm, options)) };
}

function storageType(storage: StreamStorage): StorageType {
  return storage === 'memory' ? StorageType.Memory : StorageType.File;
}

/** How the existing stream differs from the spec, one line per setting. */
export function streamDrift(config: StreamConfig, spec: StreamSpec): string[] {
  const drift: string[] = [];
  const missing = spec.subjects.filter((subject) => !config.subjects.includes(subject));
  if (missing.length > 0) drift.push(`subjects lack ${missing.join(', ')}`);
  const compare = (field: string, actual: number | string | undefined, wanted: number | string): void => {
    if (actual !== wanted) drift.push(`${field} is ${String(actual)}, configured ${String(wanted)}`);
  };
  compare('num_replicas', config.num_replicas, spec.replicas);
  compare('storage', config.storage, storageType(spec.storage));
  compare('max_age', config.max_age, nanos(spec.maxAgeMs));
  compare('max_bytes', config.max_bytes, spec.maxBytes);
  compare('max_msgs', config.max_msgs, spec.maxMsgs);
  compare('max_msg_size', config.max_msg_size, spec.maxMsgSize);
  compare('duplicate_window', config.duplicate_window, nanos(spec.duplicateWindowMs));
  return drift;
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

/** JetStream's "name already in use" (a concurrent create by another instance). */
const NAME_IN_USE = 10058;
const CONSUMER_NAME_EXISTS = 10013;

async function streamInfoOrUndefined(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (isApiError(error, JetStreamApiCodes.StreamNotFound)) return undefined;
    throw error;
  }
}

export interface EnsureStreamOptions {
  readonly mode: Exclude<StreamProvisionMode, 'off'>;
  readonly allowReplicaDecrease?: boolean;
}

/**
 * Creates the stream if missing (waiting while JetStream is unavailable). An existing stream is left as it is in `create-missing` mode (its
 * drift is reported); in `reconcile` mode its limits and subjects are brought to the spec (subjects
 * only ever added), replicas only raised (unless `allowReplicaDecrease`), storage never changed.
 */
export function ensureStream(
  jsm: JetStreamManager,
  spec: StreamSpec,
  options: EnsureStreamOptions = { mode: 'create-missing' },
): Promise<StreamProvisionReport> {
  return whenJetStreamAnswers(`stream ${spec.name}`, () => ensureStreamOnce(jsm, spec, options));
}

async function ensureStreamOnce(jsm: JetStreamManager, spec: StreamSpec, options: EnsureStreamOptions): Promise<StreamProvisionReport> {
  for (let attempt = 0; ; attempt += 1) {
    const existing = await streamInfoOrUndefined(jsm, spec.name);
    if (existing === undefined) {
      try {
        await jsm.streams.add({
          name: spec.name,
          subjects: [...spec.subjects],
          storage: storageType(spec.storage),
          retention: RetentionPolicy.Limits,
          max_age: nanos(spec.maxAgeMs),
          max_bytes: spec.maxBytes,
          max_msgs: spec.maxMsgs,
          max_msg_size: spec.maxMsgSize,
          duplicate_window: nanos(spec.duplicateWindowMs),
          num_replicas: spec.replicas,
        });
        return { result: 'created', drift: [] };
      } catch (error) {
        // Another instance created it between our info and add: compare against theirs.
        if (attempt === 0 && isApiError(error, NAME_IN_USE)) continue;
        throw error;
      }
    }
    const { config } = existing;
    if (config.retention !== RetentionPolicy.Limits) {
      throw new Error(
        `stream ${spec.name} has retention ${config.retention}; OpenPaw needs limits retention (several consumers per stream), ` +
          'and retention is fixed at creation, so changing it needs a migration',
      );
    }
    const drift = streamDrift(config, spec);
    if (drift.length === 0) return { result: 'unchanged', drift };
    if (options.mode === 'create-missing') return { result: 'kept', drift };
    const replicas = options.allowReplicaDecrease === true ? spec.replicas : Math.max(spec.replicas, config.num_replicas);
    const wanted = {
      subjects: [...config.subjects, ...spec.subjects.filter((subject) => !config.subjects.includes(subject))],
      max_age: nanos(spec.maxAgeMs),
      max_bytes: spec.maxBytes,
      max_msgs: spec.maxMsgs,
      max_msg_size: spec.maxMsgSize,
      duplicate_window: nanos(spec.duplicateWindowMs),
      num_replicas: replicas,
    };
    const changes = (Object.keys(wanted) as (keyof typeof wanted)[]).some((key) => JSON.stringify(config[key]) !== JSON.stringify(wanted[key]));
    // What is left differs but is not ours to change (storage, or replicas above the configuration).
    const kept = streamDrift({ ...config, ...wanted }, spec);
    if (!changes) return { result: 'kept', drift: kept };
    await jsm.streams.update(spec.name, wanted);
    return { result: 'updated', drift: kept };
  }
}

/** A durable pull consumer with explicit acks; the settings this lib owns. */
export interface ConsumerSpec {
  readonly stream: string;
  readonly durable: string;
  readonly filterSubject: string;
  /** Server-side delivery limit. Give it one more than the consumer's own `maxDeliver`, so a crash on the last attempt still gets the message dead-lettered. */
  readonly maxDeliver: number;
  readonly ackWaitMs: number;
  /**
   * Server-side redelivery delays for deliveries that were never acked (not for naks, which carry
   * their own delay). When set, JetStream uses its first step as the ack wait (`ackWaitMs` is then ignored).
   */
  readonly backoffMs?: readonly number[];
  readonly maxAckPending: number;
  /**
   * Where a consumer that does not exist yet starts (stream sequence); default: the stream's start.
   * A new lane's durable starts where the service's single consumer had got to, so it does not
   * replay the stream's history (see the lanes ADR).
   */
  readonly startSequence?: number;
}

/** JetStream replaces ack_wait by the first backoff step when a backoff is set. */
function effectiveAckWaitMs(spec: ConsumerSpec): number {
  return spec.backoffMs?.[0] ?? spec.ackWaitMs;
}

function consumerDiffers(config: ConsumerConfig, spec: ConsumerSpec): boolean {
  const backoff = (spec.backoffMs ?? []).map((ms) => nanos(ms));
  const current = config.backoff ?? [];
  return (
    config.filter_subject !== spec.filterSubject ||
    config.max_deliver !== spec.maxDeliver ||
    config.ack_wait !== nanos(effectiveAckWaitMs(spec)) ||
    config.max_ack_pending !== spec.maxAckPending ||
    current.length !== backoff.length ||
    current.some((value, i) => value !== backoff[i])
  );
}

async function consumerInfoOrUndefined(jsm: JetStreamManager, stream: string, durable: string): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(stream, durable);
  } catch (error) {
    if (isApiError(error, JetStreamApiCodes.ConsumerNotFound)) return undefined;
    throw error;
  }
}

/**
 * Creates the durable pull consumer if missing, updates it if a setting this lib owns differs,
 * otherwise does nothing (waiting while JetStream is unavailable). Settings JetStream fixes at creation (ack and deliver policy, push vs
 * pull) are checked and refused with an error rather than silently left as they are.
 */
export function ensureConsumer(jsm: JetStreamManager, spec: ConsumerSpec): Promise<ProvisionResult> {
  return whenJetStreamAnswers(`consumer ${spec.stream}/${spec.durable}`, () => ensureConsumerOnce(jsm, spec));
}

async function ensureConsumerOnce(jsm: JetStreamManager, spec: ConsumerSpec): Promise<ProvisionResult> {
  const settings = {
    filter_subject: spec.filterSubject,
    max_deliver: spec.maxDeliver,
    ack_wait: nanos(effectiveAckWaitMs(spec)),
    max_ack_pending: spec.maxAckPending,
    ...(spec.backoffMs === undefined || spec.backoffMs.length === 0 ? {} : { backoff: spec.backoffMs.map((ms) => nanos(ms)) }),
  };
  for (let attempt = 0; ; attempt += 1) {
    const existing = await consumerInfoOrUndefined(jsm, spec.stream, spec.durable);
    if (existing === undefined) {
      try {
        await jsm.consumers.add(spec.stream, {
          durable_name: spec.durable,
          ack_policy: AckPolicy.Explicit,
          ...(spec.startSequence === undefined
            ? { deliver_policy: DeliverPolicy.All }
            : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: spec.startSequence }),
          replay_policy: ReplayPolicy.Instant,
          ...settings,
        });
        return 'created';
      } catch (error) {
        if (attempt === 0 && (isApiError(error, CONSUMER_NAME_EXISTS) || isApiError(error, NAME_IN_USE))) continue;
        throw error;
      }
    }
    const { config } = existing;
    if (config.ack_policy !== AckPolicy.Explicit || config.deliver_subject !== undefined) {
      throw new Error(
        `consumer ${spec.stream}/${spec.durable} is not a pull consumer with explicit acks; ` +
          'those settings are fixed at creation, so changing them needs a migration (a new durable)',
      );
    }
    if (!consumerDiffers(config, spec)) return 'unchanged';
    await jsm.consumers.update(spec.stream, spec.durable, { ...settings, backoff: settings.backoff ?? [] });
    return 'updated';
  }
}

/*
 * Durable names. FROZEN: a durable is the consumer's position in its stream; renaming one starts a
 * new consumer from the beginning of the stream (and leaves the old one behind). Changing one needs a
 * migration.
 */

/** `svc-<service>`: the consumer of a service's critical-lane commands (before lanes: of all its commands). */
export function serviceCommandsDurable(service: string): string {
  return laneDurableOf(service, CRITICAL_LANE);
}

/**
 * What a lane's durable reads: its one subject when the lane has a single command (nats-server 2.9
 * has one filter subject per consumer), else all of the service's commands, the other lanes' skipped.
 * The critical lane keeps the service's original filter.
 */
export function laneFilterOf(service: string, lane: string, subjects: readonly string[]): string {
  return lane !== CRITICAL_LANE && subjects.length === 1 ? (subjects[0] as string) : serviceCommandsFilter(service);
}

/** Consumer info, or undefined when the consumer does not exist. */
export async function consumerInfoIfExists(jsm: JetStreamManager, stream: string, durable: string): Promise<ConsumerInfo | undefined> {
  return consumerInfoOrUndefined(jsm, stream, durable);
}

/** `openpaw.cmd.<service>.>`: the commands a service owns. */
export function serviceCommandsFilter(service: string): string {
  return `${SUBJECT_ROOT}.cmd.${service}.>`;
}

/** `svc-<service>-events`: a service's consumer of events (all of `openpaw.evt.>`, unknown subjects skipped). */
export function serviceEventsDurable(service: string): string {
  return `svc-${service}-events`;
}

/** `openpaw.evt.>`: what an events consumer reads (nats-server 2.9 has a single filter subject per consumer). */
export const EVENTS_FILTER = `${SUBJECT_ROOT}.evt.>`;
