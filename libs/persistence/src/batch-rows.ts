/**
 * A batch's rows from a JSON array parameter, as a relation the planner takes for a few rows.
 *
 * PostgreSQL estimates every `json(b)_to_recordset` at 100 rows whatever the array holds, so a
 * statement joining a batch (1–3 rows on a hot path) to a table plans a hash join over a scan of the
 * whole table, and a named statement keeps that plan: the coordinator's guarded write scanned
 * `workflow_runs` and `timers` on every batch, costing more as the tables grew. A LIMIT that is not a constant is estimated at a tenth of its input,
 * so the join probes the table's index instead. The LIMIT never cuts: it is the array's own length.
 *
 * It is applied twice, so the batch is estimated at one row rather than ten: at ten, a table of
 * fewer than ~2,000 rows was still cheaper to scan than to probe ten times, and a generic plan
 * (ADR 0034) keeps that choice — while such a table on a busy coordinator (`timers`, churned by every
 * step) is mostly dead rows between two autovacuums, so each batch's scan read them all (1.5–2.5 ms
 * of a 3 ms write in the hit-path bench). At one row, a table of a page or two is still scanned.
 *
 * `recordset` is the set-returning call with its column list, e.g.
 * `json_to_recordset($1::json) as r(id uuid, version int)`; `array` is the same parameter, e.g. `$1::json`.
 */
export function fewBatchRows(recordset: string, array: string): string {
  const length = array.endsWith('::jsonb') ? `jsonb_array_length(${array})` : `json_array_length(${array})`;
  return `(select * from (select * from ${recordset} limit ${length}) as few limit ${length})`;
}
