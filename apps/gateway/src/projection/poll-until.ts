/** How often a projection read that waits for a row re-reads it. */
const POLL_INTERVAL_MS = 50;

/**
 * Reads until `done` holds for the value or `graceMs` has passed, and returns the last value read.
 * Live events reach a gateway before its projection consumers have written them, so a reader that
 * has just heard of a run, a state or an asset waits here instead of answering from a row one step
 * behind (read-your-writes for the caller).
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, graceMs: number): Promise<T> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}
