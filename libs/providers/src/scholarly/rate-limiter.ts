import { type Clock, monotonicNowOf } from '../shared/clock.js';

/**
 * Request starts shared by every replica of a service (a NATS KV bucket in the research service), so a
 * source's etiquette (arXiv: one request every 3 s) holds across replicas, not per process. Times
 * cross the boundary as durations from the call, never as clock readings: no replica's clock is
 * trusted, and the store keeps its own time base (the research service's: the NATS server's stamps).
 */
export interface SharedStartSlots {
  /**
   * Reserves the next start for `key`, no sooner than `notBeforeInMs` from now and `intervalMs`
   * after the last start any replica reserved; answers how long from now (ms) that start is.
   */
  reserve(key: string, notBeforeInMs: number, intervalMs: number): Promise<number>;
}

/** The shared slots of one limiter, and what happens when they cannot be reached (the per-process spacing still holds). */
export interface SharedLimit {
  readonly slots: SharedStartSlots;
  readonly key: string;
  readonly onUnavailable?: (error: unknown) => void;
}

/**
 * Spaces request starts at least `intervalMs` apart for one source (arXiv asks for one request every
 * 3 s; Crossref announces its limit in headers and `setRate` follows it). A server's Retry-After
 * pushes the next start back with `pauseFor`, for every replica when the slots are shared. Spacing
 * is measured on the clock's monotonic reading, so a wall clock set back or forward (NTP, a person)
 * neither stalls the source nor breaks its etiquette; waiting goes through the Clock port.
 */
export class RateLimiter {
  /** On the monotonic timeline (`monotonicNowOf(clock)`). */
  private nextStartMs = Number.NEGATIVE_INFINITY;

  constructor(
    private intervalMs: number,
    private readonly clock: Clock,
    private readonly shared?: SharedLimit,
  ) {}

  get minIntervalMs(): number {
    return this.intervalMs;
  }

  /**
   * Resolves when this caller may start its request (callers are served in arrival order). With
   * shared slots, the start is also the replicas' next free one; when they cannot be reached, the
   * per-process spacing alone holds (and `onUnavailable` hears why).
   */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = monotonicNowOf(this.clock);
    let startAt = Math.max(now, this.nextStartMs);
    this.nextStartMs = startAt + this.intervalMs;
    if (this.shared !== undefined) {
      try {
        const sharedWait = await this.shared.slots.reserve(this.shared.key, startAt - now, this.intervalMs);
        // The wait is counted from the answer, a little later than the store's own moment: late, never early.
        startAt = Math.max(startAt, monotonicNowOf(this.clock) + sharedWait);
        this.nextStartMs = Math.max(this.nextStartMs, startAt + this.intervalMs);
      } catch (error) {
        this.shared.onUnavailable?.(error);
      }
    }
    const wait = startAt - monotonicNowOf(this.clock);
    if (wait > 0) await this.clock.sleep(wait, signal);
  }

  /** `limit` requests per `intervalMs` (e.g. Crossref's `x-rate-limit-limit: 50`, `x-rate-limit-interval: 1s`). */
  setRate(limit: number, perIntervalMs: number): void {
    if (!(limit > 0) || !(perIntervalMs > 0)) return;
    const interval = Math.ceil(perIntervalMs / limit);
    this.nextStartMs += interval - this.intervalMs;
    this.intervalMs = interval;
  }

  /**
   * No request starts before `delayMs` from now (a server's Retry-After). With shared slots, no
   * replica's either: the pause end is reserved as a slot with no spacing after it, which moves the
   * source's next free start to it unless that is later already. When the slots cannot be reached,
   * the pause holds in this process alone (and `onUnavailable` hears why).
   */
  async pauseFor(delayMs: number): Promise<void> {
    this.nextStartMs = Math.max(this.nextStartMs, monotonicNowOf(this.clock) + delayMs);
    if (this.shared === undefined) return;
    try {
      await this.shared.slots.reserve(this.shared.key, delayMs, 0);
    } catch (error) {
      this.shared.onUnavailable?.(error);
    }
  }
}
