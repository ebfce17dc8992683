import type { RandomSource } from './clock.js';

/** Exponential backoff with full jitter, bounded; Retry-After from the server wins when present. */
export interface RetryPolicy {
  /** Attempts per model, the first included. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call moves on (next model or failure). */
  readonly maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Delay before retry number `retry` (1 for the first retry): a uniform draw in
 * [cap/2, cap] where cap = min(maxDelay, base * 2^(retry-1)) ("equal jitter": never zero, never
 * synchronised across callers).
 */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: RandomSource): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(cap / 2 + random() * (cap / 2));
}

/**
 * Reads `retry-after-ms` (OpenAI-style) or `Retry-After` (seconds or an HTTP date) into
 * milliseconds from `nowMs`. Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(headers: { get(name: string): string | null } | undefined, nowMs: number): number | undefined {
  if (headers === undefined) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Math.round(Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

export interface RetryDecision {
  readonly retry: boolean;
  readonly retryAfterMs?: number;
}

/**
 * Runs `attempt` until it succeeds, `classify` says the error is final, or the policy's attempts
 * are used up; waits backoff-with-jitter (or the server's Retry-After) between tries on `sleep`.
 * Used where there is no fallback chain (embeddings, blob storage); LLM calls have their own loop.
 */
export async function retrying<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: {
    readonly policy: RetryPolicy;
    readonly random: RandomSource;
    readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
    readonly classify: (error: unknown) => RetryDecision;
    readonly signal?: AbortSignal;
  },
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const decision = options.classify(error);
      if (!decision.retry || n >= options.policy.maxAttempts || options.signal?.aborted === true) throw error;
      if (decision.retryAfterMs !== undefined && decision.retryAfterMs > options.policy.maxRetryAfterMs) throw error;
      await options.sleep(decision.retryAfterMs ?? backoffDelayMs(n, options.policy, options.random), options.signal);
    }
  }
}
