import { OpenPawError } from '@openpaw/contracts';
/** What a research run has ended for: legs of rounds up to `legRound`, syntheses up to `synthesisRound`. */
export interface RunEnded {
  readonly legRound: number;
  readonly synthesisRound: number;
}

export type WorkKind = 'leg' | 'synthesis';

interface InFlight {
  readonly kind: WorkKind;
  readonly round: number;
  readonly controller: AbortController;
}

/** Stopped because the research failed or was cancelled (not a cap). */
export class ResearchEndedError extends OpenPawError {
  readonly code = 'research_ended';
  override readonly name = 'ResearchEndedError';
}

/**
 * In-flight legs and syntheses of this process, by run, so a `ResearchFailed` (a cancel, a deadline,
 * max retries) stops their provider calls. A command picked up after its run ended for that round
 * is answered `cancelled` without calling anyone. Ends are remembered for `memoryMs` (a retry starts
 * higher rounds, which run).
 */
export class LegCancellations {
  readonly #inFlight = new Map<string, Set<InFlight>>();
  readonly #ended = new Map<string, RunEnded & { readonly at: number }>();

  constructor(
    private readonly memoryMs = 24 * 60 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether work of `kind` and `round` of the run is already over. */
  isOver(runId: string, kind: WorkKind, round: number): boolean {
    const ended = this.#ended.get(runId);
    if (ended === undefined || this.now() - ended.at > this.memoryMs) return false;
    return round <= (kind === 'leg' ? ended.legRound : ended.synthesisRound);
  }

  /** Runs `work` with a signal that aborts when the run ends for this round. */
  async track<T>(runId: string, kind: WorkKind, round: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const entry: InFlight = { kind, round, controller: new AbortController() };
    if (this.isOver(runId, kind, round)) entry.controller.abort(new ResearchEndedError(`research ${runId} ended`));
    const set = this.#inFlight.get(runId) ?? new Set<InFlight>();
    set.add(entry);
    this.#inFlight.set(runId, set);
    try {
      return await work(entry.controller.signal);
    } finally {
      set.delete(entry);
      if (set.size === 0) this.#inFlight.delete(runId);
    }
  }

  /** The run ended (ResearchFailed): abort what is running for it, remember it. Returns how many were aborted. */
  ended(runId: string, ended: RunEnded): number {
    this.#ended.set(runId, { ...ended, at: this.now() });
    this.#forget();
    let aborted = 0;
    for (const entry of this.#inFlight.get(runId) ?? []) {
      if (entry.round <= (entry.kind === 'leg' ? ended.legRound : ended.synthesisRound) && !entry.controller.signal.aborted) {
        entry.controller.abort(new ResearchEndedError(`research ${runId} ended`));
        aborted += 1;
      }
    }
    return aborted;
  }

  inFlight(runId: string): number {
    return this.#inFlight.get(runId)?.size ?? 0;
  }

  #forget(): void {
    const horizon = this.now() - this.memoryMs;
    for (const [runId, ended] of this.#ended) if (ended.at < horizon) this.#ended.delete(runId);
  }
}
