/**
 * Time as a port: the resilience code waits (backoff, Retry-After) through this, so tests run on a
 * fake clock and stay fast and deterministic.
 */
export interface Clock {
  /** Milliseconds since the epoch (a wall clock: NTP and people may move it). */
  now(): number;
  /**
   * Milliseconds on a monotonic clock (an arbitrary origin, never moved), for spacing and deadlines;
   * a clock without one (a test's fake, which only moves forward) is read through `now`.
   */
  monotonicNow?(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonicNow: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(toError(signal.reason));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(toError(signal?.reason));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A source of uniform numbers in [0, 1); jitter draws from it. */
export type RandomSource = () => number;

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error('aborted');
}

/** A reading for spacing and deadlines: the clock's monotonic one where it has it. */
export function monotonicNowOf(clock: Pick<Clock, 'now' | 'monotonicNow'>): number {
  return clock.monotonicNow?.() ?? clock.now();
}
