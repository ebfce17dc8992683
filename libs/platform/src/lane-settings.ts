import type { MessagingModuleOptions } from '@openpaw/messaging';

/** The command lanes this process consumes and the handlers in flight per lane (a service's settings carry them). */
export type LaneSettings = Pick<MessagingModuleOptions, 'lanes' | 'laneConcurrency'>;

/**
 * The process's role (flow control), read by each service's config once at start: `OPENPAW_LANES`
 * names the command lanes it consumes (comma-separated, e.g. `video` for a video worker; unset or
 * `all`: every lane of the service), and `OPENPAW_LANE_CONCURRENCY` the handlers in flight per lane
 * (`critical=8,video=1`). Throws naming the variable when a pair is malformed.
 */
export function laneSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): LaneSettings {
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
  return { ...(lanes === undefined ? {} : { lanes }), ...(Object.keys(laneConcurrency).length === 0 ? {} : { laneConcurrency }) };
}
