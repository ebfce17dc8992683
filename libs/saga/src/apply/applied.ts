import type { KeyClaim, OutboxRecord, RunRecord, StepLogRecord, TimerOperation } from '../records.js';
import type { InputWrites } from './input-writes.js';

/** What applying one input produced: the run's next row and the writes that commit with it. */
export interface Applied {
  readonly outcome: 'applied' | 'ignored' | 'refused';
  readonly reason?: string;
  readonly run: RunRecord | undefined;
  readonly changed: boolean;
  /** The transition applied, with the step its log row names (the decision's `step`, or the input's name). */
  readonly transition?: { readonly from: string | null; readonly to: string; readonly step: string };
  readonly logs: readonly StepLogRecord[];
  readonly outbox: readonly OutboxRecord[];
  readonly timers: readonly TimerOperation[];
  /** Keys the decision claimed (`claimKey`): the store answers each with a `claim` input in the same transaction. */
  readonly claims: readonly KeyClaim[];
}

/** The `Applied` of an input: its outcome and run, with everything the input wrote so far. */
export function finish(outcome: Applied['outcome'], run: RunRecord, changed: boolean, writes: InputWrites, reason?: string): Applied {
  return {
    outcome,
    run,
    changed,
    logs: writes.logs,
    outbox: writes.outbox,
    timers: writes.timers,
    claims: writes.claims,
    ...(reason === undefined ? {} : { reason }),
  };
}
