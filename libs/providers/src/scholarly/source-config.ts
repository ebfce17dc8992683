import { type Clock, type RandomSource, systemClock } from '../shared/clock.js';
import { defaultRetryPolicy, type RetryPolicy } from '../shared/retry.js';
import type { ScholarlyHttp } from './http.js';
import type { ScholarlySourceName } from './port.js';
import { RateLimiter, type SharedLimit, type SharedStartSlots } from './rate-limiter.js';

/** What every remote scholarly adapter takes besides its own options. */
export interface ScholarlySourceConfig {
  /** The API's base URL (a local wire-format server in tests). */
  readonly baseUrl?: string;
  /** Per request; default 15 s. */
  readonly timeoutMs?: number;
  /** Minimum spacing of request starts; each adapter has a documented default. */
  readonly minIntervalMs?: number;
  /** Pages fetched at most per search. */
  readonly maxPages?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly random?: RandomSource;
  /** Request starts shared across replicas (keyed by source); without, the spacing is per process. */
  readonly sharedSlots?: Omit<SharedLimit, 'key'> & { readonly slots: SharedStartSlots };
}

/** Scholarly APIs are searched interactively: fewer, shorter retries than model calls. */
const scholarlyRetry: RetryPolicy = { ...defaultRetryPolicy, maxAttempts: 2, maxRetryAfterMs: 30_000 };

export function scholarlyHttp(
  source: ScholarlySourceName,
  config: ScholarlySourceConfig,
  defaults: { readonly minIntervalMs: number },
  secrets: readonly (string | undefined)[],
  extra: Pick<ScholarlyHttp, 'statusKind'> = {},
): ScholarlyHttp {
  const clock = config.clock ?? systemClock;
  return {
    source,
    clock,
    random: config.random ?? Math.random,
    limiter: new RateLimiter(config.minIntervalMs ?? defaults.minIntervalMs, clock, config.sharedSlots === undefined ? undefined : { ...config.sharedSlots, key: source }),
    timeoutMs: config.timeoutMs ?? 15_000,
    retry: { ...scholarlyRetry, ...config.retry },
    secrets,
    ...extra,
  };
}

/** `base` + `path`, keeping a path prefix in `base` (`http://127.0.0.1:9/graph/v1` + `paper/search`). */
export function endpoint(base: string, path: string): URL {
  return new URL(path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`);
}
