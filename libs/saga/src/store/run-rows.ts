import type { RunRecord } from '../records.js';

/** A `workflow_runs` row as pg returns it. */
export interface RunRow {
  id: string;
  type: string;
  state: string;
  attempt_no: number;
  idempotency_key: string;
  user_id: string;
  parent_run_id: string | null;
  data: unknown;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export const RUN_COLUMNS = 'id, type, state, attempt_no, idempotency_key, user_id, parent_run_id, data, version, created_at, updated_at';

export const toRunRecord = (row: RunRow): RunRecord => ({
  id: row.id,
  type: row.type,
  state: row.state,
  attemptNo: row.attempt_no,
  idempotencyKey: row.idempotency_key,
  userId: row.user_id,
  parentRunId: row.parent_run_id,
  data: row.data,
  version: row.version,
  createdAt: new Date(row.created_at),
  updatedAt: new Date(row.updated_at),
});

/** Runs the store's statements in its open transaction. */
export type TransactionQuery = (sql: string, params: unknown[]) => Promise<unknown>;
