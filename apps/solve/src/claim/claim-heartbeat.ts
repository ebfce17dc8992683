/** The clock a heartbeat runs on: monotonic milliseconds and timers (a unit test drives its own). */
export interface HeartbeatClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realHeartbeatClock: HeartbeatClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface HeartbeatTerms {
  /** How long a claim or a renewal holds the attempt (PostgreSQL's lease). */
  readonly leaseMs: number;
  /** How often the holder renews; well below `leaseMs`, so a failed renewal is retried in time. */
  readonly renewEveryMs: number;
}

/** Thrown (and the heartbeat's signal aborted with it) when this delivery no longer holds its claim. */
export class ClaimLostError extends Error {
  override readonly name = 'ClaimLostError';
}

/**
 * The live holder's side of a claim lease. It renews every `renewEveryMs` and abandons the claim
 * (aborts `signal`) when a renewal says the claim is no longer its own, or when its lease could
 * have expired without a renewal getting through (PostgreSQL unreachable, or slow to answer).
 *
 * The holder counts its lease from when it *asked* (the claim, or the renewal that last succeeded),
 * on its own monotonic clock: PostgreSQL granted it no earlier than that, so the holder gives up no
 * later than another delivery could take over (by `expiryMarginMs` earlier, for its last writes to
 * stop), whatever the two clocks read. It never stops early on its own: a renewal that fails with
 * an error is tried again at the next beat, as long as the lease lasts.
 */
export class ClaimHeartbeat {
  readonly #controller = new AbortController();
  readonly #expiryMarginMs: number;
  #validUntil: number;
  #renewTimer: unknown;
  #expiryTimer: unknown;
  #stopped = false;
  #lost: ClaimLostError | undefined;

  /**
   * @param renew the store's renewal of this claim: true while the claim is still this lease's.
   * @param askedAt `clock.now()` taken just before the claim was asked for.
   */
  constructor(
    private readonly renew: () => Promise<boolean>,
    private readonly terms: HeartbeatTerms,
    private readonly clock: HeartbeatClock,
    askedAt: number,
  ) {
    this.#expiryMarginMs = Math.min(1_000, terms.leaseMs / 10);
    this.#validUntil = askedAt + terms.leaseMs;
    this.#scheduleExpiry();
    this.#scheduleRenewal(askedAt + terms.renewEveryMs);
  }

  /** Aborted, with a `ClaimLostError`, once the claim may be another delivery's. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Throws the `ClaimLostError` if the claim was abandoned. */
  assertHeld(): void {
    if (this.#lost !== undefined) throw this.#lost;
  }

  /** The handler ended (answered, failed or gave its claim back): no more renewals. */
  stop(): void {
    this.#stopped = true;
    this.clock.clearTimeout(this.#renewTimer);
    this.clock.clearTimeout(this.#expiryTimer);
  }

  #scheduleRenewal(at: number): void {
    this.#renewTimer = this.clock.setTimeout(() => void this.#beat(), Math.max(0, at - this.clock.now()));
  }

  #scheduleExpiry(): void {
    this.clock.clearTimeout(this.#expiryTimer);
    const giveUpAt = this.#validUntil - this.#expiryMarginMs;
    this.#expiryTimer = this.clock.setTimeout(
      () => this.#abandon(`its lease (${this.terms.leaseMs} ms) could have expired before a renewal got through`),
      Math.max(0, giveUpAt - this.clock.now()),
    );
  }

  async #beat(): Promise<void> {
    if (this.#isOver()) return;
    const askedAt = this.clock.now();
    let held: boolean | undefined;
    try {
      held = await this.renew();
    } catch {
      // PostgreSQL away or slow: the next beat tries again; the expiry timer bounds how long.
      held = undefined;
    }
    if (this.#isOver()) return;
    if (held === false) {
      this.#abandon('the claim is no longer this delivery\'s (taken over after its lease expired, or given back)');
      return;
    }
    if (held === true) {
      this.#validUntil = Math.max(this.#validUntil, askedAt + this.terms.leaseMs);
      this.#scheduleExpiry();
    }
    this.#scheduleRenewal(askedAt + this.terms.renewEveryMs);
  }

  #isOver(): boolean {
    return this.#stopped || this.#lost !== undefined;
  }

  #abandon(why: string): void {
    if (this.#isOver()) return;
    this.clock.clearTimeout(this.#renewTimer);
    this.clock.clearTimeout(this.#expiryTimer);
    this.#lost = new ClaimLostError(`this delivery gave up its claim on the attempt: ${why}`);
    this.#controller.abort(this.#lost);
  }
}
