/**
 * Names of the engine's own timers. Definitions never spell these: they use the helpers here (or the
 * step idiom built on them), so the engine and the workflows cannot drift apart.
 */

/** The engine's timer of a sent command (`send` effect with a timeout): `resend:<key>`. */
export const STEP_TIMER_PREFIX = 'resend:';

export function stepTimerName(key: string): string {
  return `${STEP_TIMER_PREFIX}${key}`;
}

/** The input a definition receives when a step's command timed out (from its pickup): `timeout:<key>`. */
export function stepTimeoutInputName(key: string): string {
  return `timeout:${key}`;
}

/** The run-deadline timer a definition sets at start; it fires as a `timer` input of this name. */
export const RUN_DEADLINE_TIMER = 'deadline';
