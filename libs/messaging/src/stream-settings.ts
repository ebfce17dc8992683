import { STREAMS } from '@openpaw/contracts';

/*
 * What the OpenPaw streams should look like, as configuration. The stream names and subjects are
 * FROZEN in `@openpaw/contracts`; replicas, storage and limits belong to whoever operates NATS and
 * come from the environment (the manifests set R3, see deploy/).
 */

/** Limits of one stream. `-1` means unlimited (JetStream's own convention). */
export interface StreamLimits {
  readonly maxAgeMs: number;
  readonly maxBytes: number;
  readonly maxMsgs: number;
  readonly maxMsgSize: number;
}

export type StreamStorage = 'file' | 'memory';

export interface StreamSettings {
  readonly replicas: number;
  readonly storage: StreamStorage;
  /** The span inside which a re-publish with the same Nats-Msg-Id is dropped. */
  readonly duplicateWindowMs: number;
  readonly limits: { readonly commands: StreamLimits; readonly events: StreamLimits; readonly deadLetters: StreamLimits };
}

/**
 * How a process treats the streams:
 * - `create-missing`: a service's bootstrap. Creates a stream that does not exist; an existing stream
 *   is never changed (its differences from the configuration are only reported).
 * - `reconcile`: the one owner (`node dist/tools/provision.js`, the provisioning Job). Creates, and
 *   brings limits and subjects to the configuration; raises replicas but never lowers them.
 * - `off`: touch nothing (the streams are managed outside OpenPaw, e.g. by NACK or Terraform).
 */
export type StreamProvisionMode = 'create-missing' | 'reconcile' | 'off';

export interface StreamProvisionOptions {
  readonly mode?: StreamProvisionMode;
  readonly settings?: StreamSettings;
  /** `reconcile` only: allow lowering replicas (a deliberate operator action, never a default). */
  readonly allowReplicaDecrease?: boolean;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const UNLIMITED: Omit<StreamLimits, 'maxAgeMs'> = { maxBytes: -1, maxMsgs: -1, maxMsgSize: -1 };

/** Development defaults: one replica, file storage, commands/events 7 days, dead letters 30 days. */
export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  replicas: 1,
  storage: 'file',
  duplicateWindowMs: 2 * MINUTE,
  limits: {
    commands: { maxAgeMs: 7 * DAY, ...UNLIMITED },
    events: { maxAgeMs: 7 * DAY, ...UNLIMITED },
    deadLetters: { maxAgeMs: 30 * DAY, ...UNLIMITED },
  },
};

const DURATION_UNITS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };
const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12 };

/** `90s`, `2m`, `12h`, `7d`, `250ms`, or plain milliseconds. */
export function parseDurationMs(raw: string, name: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(raw.trim());
  const unit = DURATION_UNITS[match?.[2] ?? 'ms'];
  if (match === null || unit === undefined) throw new Error(`${name} must be a duration like 90s, 2m, 12h or 7d, got "${raw}"`);
  return Number(match[1]) * unit;
}

/** `-1` (unlimited), plain bytes, or `512MiB`, `10GiB`, `5GB`. */
export function parseSize(raw: string, name: string): number {
  const text = raw.trim();
  if (text === '-1') return -1;
  const match = /^(\d+)\s*([a-zA-Z]*)$/.exec(text);
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (match === null || unit === undefined) throw new Error(`${name} must be -1 or a size like 512MiB or 10GiB, got "${raw}"`);
  return Number(match[1]) * unit;
}

function positiveInteger(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function set(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

function limitsFromEnv(env: NodeJS.ProcessEnv, prefix: string, defaults: StreamLimits): StreamLimits {
  const read = <T>(suffix: string, parse: (raw: string, name: string) => T, fallback: T): T => {
    const name = `${prefix}_${suffix}`;
    const raw = set(env, name);
    return raw === undefined ? fallback : parse(raw, name);
  };
  return {
    maxAgeMs: read('MAX_AGE', parseDurationMs, defaults.maxAgeMs),
    maxBytes: read('MAX_BYTES', parseSize, defaults.maxBytes),
    maxMsgs: read('MAX_MSGS', (raw, name) => (raw.trim() === '-1' ? -1 : positiveInteger(raw, name)), defaults.maxMsgs),
    maxMsgSize: read('MAX_MSG_SIZE', parseSize, defaults.maxMsgSize),
  };
}

/**
 * Stream settings from `OPENPAW_STREAM_REPLICAS`, `OPENPAW_STREAM_STORAGE` (file|memory),
 * `OPENPAW_STREAM_DUPLICATE_WINDOW`, and per stream (`COMMANDS`, `EVENTS`, `DLQ`)
 * `OPENPAW_STREAM_<S>_MAX_AGE`, `_MAX_BYTES`, `_MAX_MSGS`, `_MAX_MSG_SIZE`.
 */
export function streamSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StreamSettings {
  const d = DEFAULT_STREAM_SETTINGS;
  const storage = set(env, 'OPENPAW_STREAM_STORAGE') ?? d.storage;
  if (storage !== 'file' && storage !== 'memory') throw new Error(`OPENPAW_STREAM_STORAGE must be file or memory, got "${storage}"`);
  const replicasRaw = set(env, 'OPENPAW_STREAM_REPLICAS');
  const windowRaw = set(env, 'OPENPAW_STREAM_DUPLICATE_WINDOW');
  return {
    replicas: replicasRaw === undefined ? d.replicas : positiveInteger(replicasRaw, 'OPENPAW_STREAM_REPLICAS'),
    storage,
    duplicateWindowMs: windowRaw === undefined ? d.duplicateWindowMs : parseDurationMs(windowRaw, 'OPENPAW_STREAM_DUPLICATE_WINDOW'),
    limits: {
      commands: limitsFromEnv(env, 'OPENPAW_STREAM_COMMANDS', d.limits.commands),
      events: limitsFromEnv(env, 'OPENPAW_STREAM_EVENTS', d.limits.events),
      deadLetters: limitsFromEnv(env, 'OPENPAW_STREAM_DLQ', d.limits.deadLetters),
    },
  };
}

const MODES: readonly StreamProvisionMode[] = ['create-missing', 'reconcile', 'off'];

/** `OPENPAW_STREAMS_PROVISION` (default `create-missing`) and the settings above. */
export function streamProvisionFromEnv(env: NodeJS.ProcessEnv = process.env, fallbackMode: StreamProvisionMode = 'create-missing'): StreamProvisionOptions {
  const raw = set(env, 'OPENPAW_STREAMS_PROVISION') ?? fallbackMode;
  const mode = MODES.find((m) => m === raw);
  if (mode === undefined) throw new Error(`OPENPAW_STREAMS_PROVISION must be one of ${MODES.join(', ')}, got "${raw}"`);
  return { mode, settings: streamSettingsFromEnv(env) };
}

/** The stream names this configuration describes, in the order they are provisioned. */
export const STREAM_KEYS = [
  ['commands', STREAMS.commands],
  ['events', STREAMS.events],
  ['deadLetters', STREAMS.deadLetters],
] as const;
