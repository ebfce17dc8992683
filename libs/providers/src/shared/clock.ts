/**
 * Time as a port: the resilience code waits (backoff, Retry-After) through this, so tests run on a
 * fake clock and stay fast and deterministic.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
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
