import { OpenPawError } from '@openpaw/contracts';

/** The work stopped because its run ended (cancelled, out of time, failed): nobody waits for its result. */
export class RunEndedError extends OpenPawError {
  readonly code = 'run_ended';
  override readonly name = 'RunEndedError';
  constructor(
    readonly runId: string,
    readonly reason: string,
  ) {
    super(`run ${runId} ended (${reason})`);
  }
}

interface Tracked<T> {
  readonly tag: T;
  readonly controller: AbortController;
}

interface Ended<T> {
  readonly reason: string;
  readonly covers: (tag: T) => boolean;
  readonly at: number;
}

/**
 * A process's in-flight handler work, by run, each with its own AbortController: a run's end (a
 * cancel, its deadline; heard by `abortOnRunEnded`) aborts the provider calls of the work still running
 * for it. Work is tagged (`T`, e.g. a research leg's round) so an end may cover only part of a run's
 * work. Ends are remembered for `memoryMs`: work picked up after its run ended (a redelivery) does not
 * start. Work whose run ended while it ran gives no result: `track` rejects with `RunEndedError`.
 */
export class InFlightAborts<T = undefined> {
  readonly #inFlight = new Map<string, Set<Tracked<T>>>();
  readonly #ended = new Map<string, Ended<T>>();

  constructor(
    private readonly memoryMs = 60 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Why the run's work of this tag is over, or undefined while it is not. */
  endedFor(runId: string, tag: T): string | undefined {
    const ended = this.#ended.get(runId);
    if (ended === undefined || this.now() - ended.at > this.memoryMs) return undefined;
    return ended.covers(tag) ? ended.reason : undefined;
  }

  /** Runs `work` with a signal that aborts when the run ends (for this tag); rejects with `RunEndedError` when it did. */
  async track<R>(runId: string, tag: T, work: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const endedBefore = this.endedFor(runId, tag);
    if (endedBefore !== undefined) throw new RunEndedError(runId, endedBefore);
    let tracked: AbortSignal | undefined;
    try {
      const result = await this.run(runId, tag, (signal) => {
        tracked = signal;
        return work(signal);
      });
      tracked?.throwIfAborted();
      return result;
    } catch (error) {
      // An aborted provider call fails in its own words (AbortError, a step failure): the run's end is the reason.
      if (tracked?.aborted === true) throw tracked.reason as RunEndedError;
      throw error;
    }
  }

  /**
   * Runs `work` with a signal that aborts when the run ends (for this tag), and answers what the work
   * answers, aborted or not: for work that reports its own abort (a research leg records what it
   * spent). Work of a run that ended already starts with its signal aborted.
   */
  async run<R>(runId: string, tag: T, work: (signal: AbortSignal) => Promise<R>): Promise<R> {
    const entry: Tracked<T> = { tag, controller: new AbortController() };
    const endedBefore = this.endedFor(runId, tag);
    if (endedBefore !== undefined) entry.controller.abort(new RunEndedError(runId, endedBefore));
    const set = this.#inFlight.get(runId) ?? new Set<Tracked<T>>();
    set.add(entry);
    this.#inFlight.set(runId, set);
    try {
      return await work(entry.controller.signal);
    } finally {
      set.delete(entry);
      if (set.size === 0) this.#inFlight.delete(runId);
    }
  }

  /** The run ended: abort its work in flight that `covers` (all by default), and remember it. Answers how many were aborted. */
  end(runId: string, reason: string, covers: (tag: T) => boolean = () => true): number {
    this.#forget();
    // Re-inserted, not overwritten: the map stays in the order of `at`, so forgetting stops at the first live end.
    this.#ended.delete(runId);
    this.#ended.set(runId, { reason, covers, at: this.now() });
    let aborted = 0;
    for (const entry of this.#inFlight.get(runId) ?? []) {
      if (entry.controller.signal.aborted || !covers(entry.tag)) continue;
      entry.controller.abort(new RunEndedError(runId, reason));
      aborted += 1;
    }
    return aborted;
  }

  inFlight(runId: string): number {
    return this.#inFlight.get(runId)?.size ?? 0;
  }

  /** Ends remembered (for metrics and tests). */
  get remembered(): number {
    return this.#ended.size;
  }

  /**
   * Forgets ends older than the memory, oldest first, up to the first one still remembered: amortised
   * constant per end (visual-search ends a run's earlier steps on every step, in every replica; a scan
   * of every remembered end took 0.35 ms an end at 10,000 runs). A clock that steps back leaves an end
   * remembered a little longer, never shorter (`endedFor` checks the age itself).
   */
  #forget(): void {
    const horizon = this.now() - this.memoryMs;
    for (const [runId, ended] of this.#ended) {
      if (ended.at >= horizon) break;
      this.#ended.delete(runId);
    }
  }
}
