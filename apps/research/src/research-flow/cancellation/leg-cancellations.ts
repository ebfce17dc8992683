import { InFlightAborts } from '@openpaw/messaging';

/** What a research run has ended for: legs of rounds up to `legRound`, syntheses up to `synthesisRound`. */
export interface RunEnded {
  readonly legRound: number;
  readonly synthesisRound: number;
}

export type WorkKind = 'leg' | 'synthesis';

interface ResearchWork {
  readonly kind: WorkKind;
  readonly round: number;
}

/**
 * In-flight legs and syntheses of this process, by run, so a `ResearchFailed` (a cancel, a deadline,
 * max retries) stops their provider calls: libs/messaging's `InFlightAborts`, its work tagged by kind
 * and round. A command picked up after its run ended for that round is answered `cancelled` without
 * calling anyone. Ends are remembered for `memoryMs` (a retry starts higher rounds, which run).
 */
export class LegCancellations {
  readonly #aborts: InFlightAborts<ResearchWork>;

  constructor(memoryMs = 24 * 60 * 60 * 1000, now: () => number = Date.now) {
    this.#aborts = new InFlightAborts<ResearchWork>(memoryMs, now);
  }

  /** Whether work of `kind` and `round` of the run is already over. */
  isOver(runId: string, kind: WorkKind, round: number): boolean {
    return this.#aborts.endedFor(runId, { kind, round }) !== undefined;
  }

  /** Runs `work` with a signal that aborts when the run ends for this round (the work reports its own abort). */
  track<T>(runId: string, kind: WorkKind, round: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.#aborts.run(runId, { kind, round }, work);
  }

  /** The run ended (ResearchFailed): abort what is running for it, remember it. Returns how many were aborted. */
  ended(runId: string, ended: RunEnded): number {
    return this.#aborts.end(runId, 'research ended', (work) => work.round <= (work.kind === 'leg' ? ended.legRound : ended.synthesisRound));
  }

  inFlight(runId: string): number {
    return this.#aborts.inFlight(runId);
  }
}
