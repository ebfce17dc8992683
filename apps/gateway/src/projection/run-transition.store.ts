import type { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from './run-projection.entity.js';
import type { RunStateChangedData } from './run-projection.store.js';

/** One state change of a run, as its `RunStateChanged` event told it. */
export interface RunTransition {
  readonly version: number;
  readonly attemptNo: number;
  readonly stateBefore: string | null;
  readonly stateAfter: string;
  readonly stepName: string;
  readonly terminal: boolean;
  readonly occurredAt: Date;
  /** The retry this change scheduled, if any (the failed try, why, when the next goes). */
  readonly retryScheduled: RetryScheduled | null;
}

export type RetryScheduled = NonNullable<RunStateChangedData['retryScheduled']>;

export const RUN_TRANSITIONS_TABLE = `"${GATEWAY_SCHEMA}"."run_transitions"`;
const TABLE = RUN_TRANSITIONS_TABLE;

/** Most transitions one run's timeline shows (a run retries a step a bounded number of times). */
export const MAX_TIMELINE_TRANSITIONS = 500;

interface TransitionRow {
  version: number;
  attempt_no: number;
  state_before: string | null;
  state_after: string;
  step_name: string;
  terminal: boolean;
  occurred_at: Date;
  retry_scheduled: RetryScheduled | null;
}

/** The gateway's `run_transitions` table: each run's public timeline, in version order (written by `RunEventApplier`). */
export class RunTransitionStore {
  constructor(private readonly dataSource: DataSource) {}

  /** A run's transitions, oldest first (the caller has checked that the run is the user's). */
  async forRun(runId: string): Promise<RunTransition[]> {
    const rows = await this.dataSource.query<TransitionRow[]>(
      `select version, attempt_no, state_before, state_after, step_name, terminal, occurred_at, retry_scheduled
         from ${TABLE} where run_id = $1 order by version limit $2`,
      [runId, MAX_TIMELINE_TRANSITIONS],
    );
    return rows.map((row) => ({
      version: row.version,
      attemptNo: row.attempt_no,
      stateBefore: row.state_before,
      stateAfter: row.state_after,
      stepName: row.step_name,
      terminal: row.terminal,
      occurredAt: row.occurred_at,
      retryScheduled: row.retry_scheduled,
    }));
  }
}
