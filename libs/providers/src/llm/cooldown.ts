/**
 * Takes a provider out of rotation for a while after it keeps failing: `failureThreshold`
 * consecutive availability failures (429, 5xx, timeouts, network) start a cooldown of
 * `cooldownMs`; a success resets the count. Keys are a provider name, or a provider plus the
 * fingerprint of a per-user key (so one user's exhausted quota does not cool a provider for all).
 */
export interface CooldownPolicy {
  readonly failureThreshold: number;
  readonly cooldownMs: number;
}

export const defaultCooldownPolicy: CooldownPolicy = { failureThreshold: 5, cooldownMs: 30_000 };

interface CooldownState {
  failures: number;
  until: number;
}

export class ProviderCooldown {
  private readonly state = new Map<string, CooldownState>();

  constructor(private readonly policy: CooldownPolicy = defaultCooldownPolicy) {}

  /** Milliseconds left of the key's cooldown, 0 when it may be called. */
  remainingMs(key: string, nowMs: number): number {
    const state = this.state.get(key);
    return state === undefined ? 0 : Math.max(0, state.until - nowMs);
  }

  /** Records a failure; true when it started a cooldown. */
  recordFailure(key: string, nowMs: number): boolean {
    const state = this.state.get(key) ?? { failures: 0, until: 0 };
    state.failures += 1;
    this.state.set(key, state);
    if (state.failures >= this.policy.failureThreshold) {
      state.failures = 0;
      state.until = nowMs + this.policy.cooldownMs;
      return true;
    }
    return false;
  }

  recordSuccess(key: string): void {
    this.state.delete(key);
  }
}
