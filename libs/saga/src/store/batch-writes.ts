import type { Applied } from '../apply/index.js';
import type { KeyClaim, OutboxRecord, RunRecord, StepLogRecord, TimerOperation } from '../records.js';
import type { SagaRegistry } from '../registry.js';
import { isTerminal } from '../transition-table.js';

/** What one batch's inputs (and the engine's answers to their key claims) wrote, gathered for the batch's one write. */
export class BatchWrites {
  readonly logs: StepLogRecord[] = [];
  readonly outbox: OutboxRecord[] = [];
  readonly timers: TimerOperation[] = [];
  readonly claimAnswers: Applied[] = [];
  /** Runs of workflows that claim keys which ended in this batch: their keys' waiters are told. */
  readonly endedHolders = new Map<string, RunRecord>();
  private readonly touched = new Set<string>();
  private claims: KeyClaim[] = [];

  /** `runs`: the batch's locked runs, kept at their latest state. */
  constructor(
    readonly runs: Map<string, RunRecord>,
    private readonly registry: SagaRegistry,
  ) {}

  absorb(applied: Applied): void {
    const run = applied.run;
    if (run !== undefined && applied.changed) {
      this.runs.set(run.id, run);
      this.touched.add(run.id);
      const definition = this.registry.get(run.type);
      if (applied.transition !== undefined && definition?.keyClaims !== undefined && isTerminal(definition, run.state)) this.endedHolders.set(run.id, run);
    }
    this.logs.push(...applied.logs);
    this.outbox.push(...applied.outbox);
    this.timers.push(...applied.timers);
    this.claims.push(...applied.claims);
  }

  /** How many key claims are asked and not answered yet. */
  get claimsAsked(): number {
    return this.claims.length;
  }

  /** The key claims asked and not answered yet (taken: each is answered once). */
  takeClaims(): KeyClaim[] {
    return this.claims.splice(0, this.claims.length);
  }

  changedRuns(): RunRecord[] {
    return [...this.touched].map((id) => this.runs.get(id)).filter((run): run is RunRecord => run !== undefined);
  }
}
