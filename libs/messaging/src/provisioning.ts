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
import { CRITICAL_LANE, laneDurableOf, STREAMS, SUBJECT_ROOT } from '@openpaw/contracts';

/** What provisioning did to one stream or consumer. */
export type ProvisionResult = 'created' | 'updated' | 'unchanged';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The settings this lib owns for a stream; everything else keeps the server's defaults. */
export interface StreamSpec {
  readonly name: string;
  readonly subjects: readonly string[];
  readonly maxAgeMs: number;
  readonly duplicateWindowMs: number;
  readonly replicas: number;
}

/**
 * The three OpenPaw streams (names and subjects are FROZEN in `@openpaw/contracts`). File storage,
 * limits retention, a 2 minute duplicate window (the span inside which a re-publish with the same
 * Nats-Msg-Id is dropped), commands and events kept 7 days, dead letters 30 days.
 */
export function streamSpecs(options: { readonly replicas?: number } = {}): readonly StreamSpec[] {
  const replicas = options.replicas ?? 1;
  const duplicateWindowMs = 2 * 60 * 1000;
  return [
    { name: STREAMS.commands.name, subjects: STREAMS.commands.subjects, maxAgeMs: 7 * DAY_MS, duplicateWindowMs, replicas },
    { name: STREAMS.events.name, subjects: STREAMS.events.subjects, maxAgeMs: 7 * DAY_MS, duplicateWindowMs, replicas },
    { name: STREAMS.deadLetters.name, subjects: STREAMS.deadLetters.subjects, maxAgeMs: 30 * DAY_MS, duplicateWindowMs, replicas },
  ];
}

/** Creates or updates the three streams; a no-op when they already match. Safe to run from every service at start. */
export async function provisionStreams(
  jsm: JetStreamManager,
  options: { readonly replicas?: number } = {},
): Promise<Record<string, ProvisionResult>> {
  const results: Record<string, ProvisionResult> = {};
  for (const spec of streamSpecs(options)) results[spec.name] = await ensureStream(jsm, spec);
  return results;
}

function sameSubjects(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');
}

function streamDiffers(config: StreamConfig, spec: StreamSpec): boolean {
  return (
    !sameSubjects(config.subjects, spec.subjects) ||
    config.max_age !== nanos(spec.maxAgeMs) ||
    config.duplicate_window !== nanos(spec.duplicateWindowMs) ||
    config.num_replicas !== spec.replicas
  );
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

/** Creates the stream if missing, updates the settings this lib owns if they differ, otherwise does nothing. */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<ProvisionResult> {
  for (let attempt = 0; ; attempt += 1) {
    const existing = await streamInfoOrUndefined(jsm, spec.name);
    if (existing === undefined) {
      try {
        await jsm.streams.add({
          name: spec.name,
          subjects: [...spec.subjects],
          storage: StorageType.File,
          retention: RetentionPolicy.Limits,
          max_age: nanos(spec.maxAgeMs),
          duplicate_window: nanos(spec.duplicateWindowMs),
          num_replicas: spec.replicas,
        });
        return 'created';
      } catch (error) {
        // Another instance created it between our info and add: compare against theirs.
        if (attempt === 0 && isApiError(error, NAME_IN_USE)) continue;
        throw error;
      }
    }
    const { config } = existing;
    if (config.storage !== StorageType.File || config.retention !== RetentionPolicy.Limits) {
      throw new Error(
        `stream ${spec.name} has storage ${config.storage} and retention ${config.retention}; ` +
          'both are fixed at creation, so moving to file/limits needs a migration',
      );
    }
    if (!streamDiffers(config, spec)) return 'unchanged';
    await jsm.streams.update(spec.name, {
      subjects: [...spec.subjects],
      max_age: nanos(spec.maxAgeMs),
      duplicate_window: nanos(spec.duplicateWindowMs),
      num_replicas: spec.replicas,
    });
    return 'updated';
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
 * otherwise does nothing. Settings JetStream fixes at creation (ack and deliver policy, push vs
 * pull) are checked and refused with an error rather than silently left as they are.
 */
export async function ensureConsumer(jsm: JetStreamManager, spec: ConsumerSpec): Promise<ProvisionResult> {
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
