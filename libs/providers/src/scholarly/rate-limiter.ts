import type { Clock } from '../shared/clock.js';

/**
 * Spaces request starts at least `intervalMs` apart for one source (arXiv asks for one request every
 * 3 s; Crossref announces its limit in headers and `setRate` follows it). A server's Retry-After
 * pushes the next start back with `pauseUntil`. Waiting goes through the Clock port.
 */
export class RateLimiter {
  private nextStartMs = Number.NEGATIVE_INFINITY;

  constructor(
    private intervalMs: number,
    private readonly clock: Clock,
  ) {}

  get minIntervalMs(): number {
    return this.intervalMs;
  }

  /** Resolves when this caller may start its request (callers are served in arrival order). */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const startAt = Math.max(now, this.nextStartMs);
    this.nextStartMs = startAt + this.intervalMs;
    if (startAt > now) await this.clock.sleep(startAt - now, signal);
  }

  /** `limit` requests per `intervalMs` (e.g. Crossref's `x-rate-limit-limit: 50`, `x-rate-limit-interval: 1s`). */
  setRate(limit: number, perIntervalMs: number): void {
    if (!(limit > 0) || !(perIntervalMs > 0)) return;
    const interval = Math.ceil(perIntervalMs / limit);
    this.nextStartMs += interval - this.intervalMs;
    this.intervalMs = interval;
  }

  /** No request starts before `nowMs + delayMs`. */
  pauseFor(delayMs: number): void {
    this.nextStartMs = Math.max(this.nextStartMs, this.clock.now() + delayMs);
  }
}
