import { type MessagingModuleOptions, streamProvisionFromEnv, type StreamProvisionOptions } from '@openpaw/messaging';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** The command lanes this process consumes and the handlers in flight per lane. */
export type LaneSettings = Pick<MessagingModuleOptions, 'lanes' | 'laneConcurrency' | 'commandReceiptAfterMs'>;

/**
 * What a service's messaging takes from the environment, read by the service's config once at start
 * and passed on as `ServiceMessagingModule.forService(name, { ...settings.messaging })`.
 */
export interface ServiceMessagingSettings extends LaneSettings {
  readonly natsUrl: readonly string[];
  /** Stream provisioning at start (`OPENPAW_STREAMS_PROVISION`, `OPENPAW_STREAM_*`; default `create-missing`). */
  readonly streams: StreamProvisionOptions;
}

/**
 * `OPENPAW_NATS_URL`, `OPENPAW_STREAMS_PROVISION` with `OPENPAW_STREAM_*`, `OPENPAW_LANES` and
 * `OPENPAW_LANE_CONCURRENCY`; throws naming the invalid variable.
 */
export function serviceMessagingSettingsFromEnv(env: NodeJS.ProcessEnv): ServiceMessagingSettings {
  return { natsUrl: natsUrlFromEnv(env), streams: streamProvisionFromEnv(env), ...laneSettingsFromEnv(env) };
}

/** `OPENPAW_NATS_URL` (comma-separated for several servers), default `nats://127.0.0.1:4222`. */
export function natsUrlFromEnv(env: NodeJS.ProcessEnv): string[] {
  const raw = env['OPENPAW_NATS_URL'];
  if (raw === undefined || raw.trim() === '') return [DEFAULT_NATS_URL];
  return raw
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
}

/**
 * The process's role (flow control): `OPENPAW_LANES` names the command lanes it consumes
 * (comma-separated, e.g. `video` for a video worker; unset or `all`: every lane of the service), and
 * `OPENPAW_LANE_CONCURRENCY` the handlers in flight per lane (`critical=8,video=1`), and
 * `OPENPAW_COMMAND_RECEIPT_AFTER_MS` how long a command is in its handler before it gets a receipt
 * (default 1 s; 0: every pickup, e.g. for a bench that splits a command's queueing from its handling).
 * Throws naming the variable when a value is malformed.
 */
export function laneSettingsFromEnv(env: NodeJS.ProcessEnv): LaneSettings {
  const lanesRaw = env['OPENPAW_LANES']?.trim();
  const lanes = lanesRaw === undefined || lanesRaw === '' || lanesRaw === 'all' ? undefined : lanesRaw.split(',').map((l) => l.trim()).filter((l) => l !== '');
  const concurrencyRaw = env['OPENPAW_LANE_CONCURRENCY']?.trim();
  const laneConcurrency: Record<string, number> = {};
  for (const pair of concurrencyRaw === undefined || concurrencyRaw === '' ? [] : concurrencyRaw.split(',')) {
    const [lane, value] = pair.split('=').map((part) => part.trim());
    const n = Number(value);
    if (lane === undefined || lane === '' || !Number.isInteger(n) || n < 1) {
      throw new Error(`OPENPAW_LANE_CONCURRENCY: "${pair}" is not <lane>=<positive integer>`);
    }
    laneConcurrency[lane] = n;
  }
  const receiptRaw = env['OPENPAW_COMMAND_RECEIPT_AFTER_MS']?.trim();
  const receiptAfterMs = receiptRaw === undefined || receiptRaw === '' ? undefined : Number(receiptRaw);
  if (receiptAfterMs !== undefined && (!Number.isInteger(receiptAfterMs) || receiptAfterMs < 0)) {
    throw new Error(`OPENPAW_COMMAND_RECEIPT_AFTER_MS: "${receiptRaw}" is not a whole number of milliseconds (0 or more)`);
  }
  return {
    ...(lanes === undefined ? {} : { lanes }),
    ...(Object.keys(laneConcurrency).length === 0 ? {} : { laneConcurrency }),
    ...(receiptAfterMs === undefined ? {} : { commandReceiptAfterMs: receiptAfterMs }),
  };
}
