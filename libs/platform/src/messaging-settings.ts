import { type MessagingModuleOptions, natsConnectionSettingsFromEnv, streamProvisionFromEnv, type StreamProvisionOptions } from '@openpaw/messaging';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** The command lanes this process consumes and the handlers in flight per lane. */
export type LaneSettings = Pick<MessagingModuleOptions, 'lanes' | 'laneConcurrency' | 'commandReceiptAfterMs'>;

/**
 * What a service's messaging takes from the environment, read by the service's config once at start
 * and passed on as `ServiceMessagingModule.forService(name, { ...settings.messaging })`.
 */
export interface ServiceMessagingSettings extends LaneSettings {
  readonly natsUrl: readonly string[];
  /** Stream provisioning at start (`OPENPAW_STREAMS_PROVISION`, `OPENPAW_STREAM_*`; default `create-missing`, only `off` as its own NATS user). */
  readonly streams: StreamProvisionOptions;
}

/**
 * `OPENPAW_NATS_URL`, `OPENPAW_STREAMS_PROVISION` with `OPENPAW_STREAM_*`, `OPENPAW_LANES` and
 * `OPENPAW_LANE_CONCURRENCY`; throws naming the invalid variable.
 */
export function serviceMessagingSettingsFromEnv(env: NodeJS.ProcessEnv): ServiceMessagingSettings {
  return { natsUrl: natsUrlFromEnv(env), streams: serviceStreamProvisionFromEnv(env), ...laneSettingsFromEnv(env) };
}

/**
 * A service's stream provisioning (`OPENPAW_STREAMS_PROVISION`, `OPENPAW_STREAM_*`). A service that
 * connects as its own NATS user (`OPENPAW_NATS_CREDS_FILE`: the platform's users, deploy/src/nats-credentials.ts)
 * may not create, change or inspect a stream or KV bucket: the stream owner provisions them (the
 * migrations Job's streams step). Any mode but `off` would fail at its first request with a NATS
 * permissions violation, so it is refused here, at start, naming the setting: `create-missing`
 * (the default) and `reconcile` alike.
 */
export function serviceStreamProvisionFromEnv(env: NodeJS.ProcessEnv): StreamProvisionOptions {
  const options = streamProvisionFromEnv(env);
  const mode = options.mode ?? 'create-missing';
  if (mode !== 'off' && natsConnectionSettingsFromEnv(env).credsFile !== undefined) {
    const given = env['OPENPAW_STREAMS_PROVISION']?.trim() ?? '';
    throw new Error(
      `OPENPAW_STREAMS_PROVISION=${given === '' ? `${mode} (the default)` : mode} cannot run as this service's own NATS user (OPENPAW_NATS_CREDS_FILE is set): ` +
        'its permissions allow no stream or KV bucket to be created, changed or inspected, the stream owner provisions them (the migrations Job, tools/provision.js); set OPENPAW_STREAMS_PROVISION=off',
    );
  }
  return options;
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
