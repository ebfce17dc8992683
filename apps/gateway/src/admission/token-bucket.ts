/**
 * A token bucket per key: `burst` tokens, refilled at `ratePerSecond`. Pure arithmetic over the
 * given clock readings (no timers); idle buckets are forgotten once full again.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /** Takes a token for `key` at `nowMs`: 0 when taken, else the milliseconds until one is available. */
  take(key: string, ratePerSecond: number, burst: number, nowMs: number): number {
    const bucket = this.#buckets.get(key) ?? { tokens: burst, at: nowMs };
    // Concurrent admissions read the clock before their awaits and take in any order: a time before
    // the bucket's last is no refill (and no drain, which a negative interval would be), and the
    // bucket's time never goes back.
    const at = Math.max(bucket.at, nowMs);
    const tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * ratePerSecond);
    if (tokens >= 1) {
      this.#buckets.set(key, { tokens: tokens - 1, at });
      return 0;
    }
    this.#buckets.set(key, { tokens, at });
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
