import { createHash } from 'node:crypto';
import type { ScholarlyQuery, ScholarlySearchResult, ScholarlySourceName } from './port.js';

/**
 * One stored answer: the result, and when (ms since the epoch, the writer's clock) it stops being
 * answered. A reader believes it no longer than its own TTL from reading it, and a KV bucket's own TTL
 * (the server's clock) bounds it too: clocks need only agree to well under the TTL (minutes), and a
 * search waiting on another replica's fetch takes its answer whatever the clocks (see `revision`).
 */
export interface CachedResponse {
  readonly result: ScholarlySearchResult;
  readonly expiresAtMs: number;
  /**
   * Where the store placed this write among all its writes (a KV revision), set by `get`, never
   * stored: a waiting search takes an answer written after the one it missed as live, clock aside.
   */
  readonly revision?: number;
}

/**
 * Search results shared by every replica of a service (a NATS KV bucket in the research service), so
 * an identical search made on another replica is answered without asking the source again. Best
 * effort: `get` answers undefined for a miss, and any call may throw when the store cannot be used
 * (the caller then fetches, and still answers).
 */
export interface SharedResponseCache {
  get(key: string): Promise<CachedResponse | undefined>;
  set(key: string, response: CachedResponse): Promise<void>;
  /**
   * Claims the fetch of `key` for `lifeMs`, atomically, so that replicas missing the same key at once
   * fetch it once: the others wait for the claimant's answer. Answers `held` while another caller's
   * claim stands; `fetch` when the caller should fetch, holding the claim (release it when done) or not
   * (when the store cannot record a claim, e.g. it is full). A claim lapses (and is taken over) once
   * the caller has seen that same claim, unchanged, for the claimant's `lifeMs` by its own monotonic
   * clock: no two machines' clocks are compared. Optional: without it every replica that misses fetches.
   */
  claim?(key: string, lifeMs: number): Promise<FetchClaim>;
}

export type FetchClaim = { readonly outcome: 'held' } | { readonly outcome: 'fetch'; release(): Promise<void> };

/** The shared responses of the remote sources, how long a call to them may take, and who hears when they cannot be used. */
export interface SharedResponses {
  readonly cache: SharedResponseCache;
  /** A get or set slower than this is given up (default 1000 ms): an outage costs a search this much, once per call. */
  readonly timeoutMs?: number;
  /**
   * How long a claim holds, and so the longest a search waits for another replica fetching the same
   * thing before it fetches itself (default 5000 ms; see `SharedResponseCache.claim`).
   */
  readonly claimMs?: number;
  /** How often a waiting search looks for the claimant's answer (default 100 ms). */
  readonly claimPollMs?: number;
  readonly onUnavailable?: (error: unknown) => void;
}

/**
 * The cache key of a search: the source and a SHA-256 of the normalised request (every field that
 * changes what the source answers, object keys sorted, strings NFC with whitespace collapsed; the abort
 * signal left out). Hex, so it is a valid KV key of any length of query.
 */
export function responseCacheKey(source: ScholarlySourceName, query: ScholarlyQuery): string {
  const { signal: _signal, ...asked } = query;
  return `${source}.${createHash('sha256').update(JSON.stringify(normalised(asked))).digest('hex')}`;
}

function normalised(value: unknown): unknown {
  if (typeof value === 'string') return value.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (Array.isArray(value)) return value.map(normalised);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, field]) => field !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, field]) => [key, normalised(field)]),
    );
  }
  return value;
}
