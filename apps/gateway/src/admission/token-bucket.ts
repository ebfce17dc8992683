/**
 * A token bucket per key: `burst` tokens, refilled at `ratePerSecond`. Pure arithmetic over the
 * given clock readings (no timers); idle buckets are forgotten once full again.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /** Takes a token for `key` at `nowMs`: 0 when taken, else the milliseconds until one is available. */
  take(key: string, ratePerSecond: number, burst: number, nowMs: number): number {
    const bucket = this.#buckets.get(key) ?? { tokens: burst, at: nowMs };
    const tokens = Math.min(burst, bucket.tokens + ((nowMs - bucket.at) / 1000) * ratePerSecond);
    if (tokens >= 1) {
      this.#buckets.set(key, { tokens: tokens - 1, at: nowMs });
      return 0;
    }
    this.#buckets.set(key, { tokens, at: nowMs });
    return Math.ceil(((1 - tokens) / ratePerSecond) * 1000);
  }

  /** Drops buckets that have refilled completely (they behave exactly like new ones). */
  prune(ratePerSecondOf: (key: string) => number, burstOf: (key: string) => number, nowMs: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + ((nowMs - bucket.at) / 1000) * ratePerSecondOf(key) >= burstOf(key)) this.#buckets.delete(key);
    }
  }

  get size(): number {
    return this.#buckets.size;
  }
}
