import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { messageCounters } from '@openpaw/messaging';
import type { PreparedSql } from '@openpaw/persistence';
import { RUN_PROJECTION_COLUMNS, RUN_PROJECTION_TABLE, type RunProjection, type RunProjectionRow, rowToProjection } from './run-projection.store.js';
import { RUN_TRANSITIONS_TABLE } from './run-transition.store.js';
import type { RunChange } from './run-change.js';

/**
 * Projects a batch of run changes (`RunStateChanged` v2, or a v1 as a change of one transition), at
 * most one per run, in one statement (one round trip, one commit):
 *  - `transition`: the timeline keeps every transition of every change, idempotent by (run, version);
 *  - `newer`: a run's row moves to its change when the change is newer than the row (by `version`),
 *    so redeliveries and reordering are harmless; `created_at` keeps the earliest time seen;
 *    `attempt_started_at` moves to the time of the change's first transition of its attempt when the
 *    attempt number grows;
 *  - `earlier_times`: an older change arriving late (the consumer applies in any order) still carries
 *    the earliest times. It touches only rows `newer` left alone, so no row is written twice.
 * Rows are taken in run id order (the same lock order in every batch). Answers, per change, the run's
 * row as the change left it when the change moved it (no row: it did not). Exported for its plan's spec.
 */
export const PROJECT_RUN_EVENTS = `
  with event as (
    select * from jsonb_to_recordset($1::jsonb)
      as e(run_id uuid, workflow_type text, user_id text, state text, terminal boolean, attempt_no int, version int, parent_run_id uuid,
           view jsonb, occurred_at timestamptz, first_at timestamptz, attempt_first_at timestamptz)
  ), change as (
    select * from jsonb_to_recordset($2::jsonb)
      as c(run_id uuid, version int, attempt_no int, state_before text, state_after text, step_name text, terminal boolean,
           occurred_at timestamptz, retry_scheduled jsonb)
  ), transition as (
    insert into ${RUN_TRANSITIONS_TABLE} (run_id, version, attempt_no, state_before, state_after, step_name, terminal, occurred_at, retry_scheduled)
    select run_id, version, attempt_no, state_before, state_after, step_name, terminal, occurred_at, retry_scheduled from change order by run_id, version
    on conflict (run_id, version) do nothing
  ), newer as (
    insert into ${RUN_PROJECTION_TABLE} as p
      (run_id, workflow_type, user_id, state, terminal, attempt_no, version, parent_run_id, view, created_at, updated_at, attempt_started_at)
    select run_id, workflow_type, user_id, state, terminal, attempt_no, version, parent_run_id, view,
           date_trunc('milliseconds', first_at), occurred_at, date_trunc('milliseconds', attempt_first_at)
      from event order by run_id
    on conflict (run_id) do update set
      workflow_type = excluded.workflow_type,
      user_id = excluded.user_id,
      state = excluded.state,
      terminal = excluded.terminal,
      attempt_no = excluded.attempt_no,
      version = excluded.version,
      parent_run_id = excluded.parent_run_id,
      view = excluded.view,
      created_at = least(p.created_at, excluded.created_at),
      updated_at = excluded.updated_at,
      attempt_started_at = case
        when excluded.attempt_no > p.attempt_no or p.attempt_started_at is null then excluded.attempt_started_at
        else least(p.attempt_started_at, excluded.attempt_started_at)
      end
    where p.version < excluded.version
    returning ${RUN_PROJECTION_COLUMNS}
  ), earlier_times as (
    update ${RUN_PROJECTION_TABLE} as p set
      created_at = least(p.created_at, date_trunc('milliseconds', e.first_at)),
      attempt_started_at = case when p.attempt_no = e.attempt_no then least(p.attempt_started_at, date_trunc('milliseconds', e.attempt_first_at))
                                else p.attempt_started_at end
    from event e
    where p.run_id = e.run_id
      and not exists (select 1 from newer n where n.run_id = e.run_id)
      and (p.created_at > e.first_at or (p.attempt_no = e.attempt_no and p.attempt_started_at > e.attempt_first_at))
  )
  select e.run_id as event_run_id, n.* from event e left join newer n on n.run_id = e.run_id`;

/** Most events in one statement. */
const MAX_BATCH = 100;
/** Most statements in flight at once (the gateway's pool also serves its requests). */
const MAX_IN_FLIGHT = 3;

interface Waiting {
  readonly event: RunChange;
  readonly resolve: (projected: RunProjection | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes run changes into the projection as they come, grouping those that arrive while earlier
 * writes are in flight (a group commit): an idle gateway writes each event at once; a busy one
 * writes many runs' events in one statement. A batch holds at most one event per run, and a run is
 * in at most one batch in flight, so each row sees its events one after another as before. A batch
 * that fails is retried event by event, so one bad event fails alone.
 *
 * Tracing: a batch written when an event arrives runs in that event's context (its statement is a
 * span of that trace, as before); one started when an earlier batch finishes runs in none.
 */
export class RunEventWriter {
  private queue: Waiting[] = [];
  private inFlight = 0;
  /** Runs with an event in a statement in flight. */
  private readonly busyRuns = new Set<string>();

  constructor(private readonly sql: PreparedSql) {}

  /** Projects the event; answers the run's row as the event left it, when the event moved it. */
  write(event: RunChange): Promise<RunProjection | undefined> {
    return new Promise<RunProjection | undefined>((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT) {
      const batch = this.take();
      if (batch.length === 0) return;
      this.inFlight += 1;
      for (const waiting of batch) this.busyRuns.add(waiting.event.runId);
      void this.flush(batch).finally(() => {
        this.inFlight -= 1;
        for (const waiting of batch) this.busyRuns.delete(waiting.event.runId);
        // The next batch is other events' work: its statement is not a span of this batch's trace.
        context.with(ROOT_CONTEXT, () => this.pump());
      });
    }
  }

  /** The next batch, in arrival order: one event per run, none of a run already in flight. */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const runs = new Set<string>();
    for (const waiting of this.queue) {
      const runId = waiting.event.runId;
      if (batch.length < MAX_BATCH && !runs.has(runId) && !this.busyRuns.has(runId)) {
        runs.add(runId);
        batch.push(waiting);
      } else {
        rest.push(waiting);
      }
    }
    this.queue = rest;
    return batch;
  }

  private async flush(batch: readonly Waiting[]): Promise<void> {
    try {
      const projected = await this.project(batch.map((w) => w.event));
      for (const waiting of batch) waiting.resolve(projected.get(waiting.event.runId));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      for (const waiting of batch) {
        await this.project([waiting.event]).then(
          (projected) => waiting.resolve(projected.get(waiting.event.runId)),
          (alone: unknown) => waiting.reject(alone),
        );
      }
    }
  }

  /** Per run id of `events`, its row as the event left it (absent: the event did not move it). */
  private async project(events: readonly RunChange[]): Promise<Map<string, RunProjection>> {
    const rows = await this.sql.query<{ event_run_id: string } & (RunProjectionRow | { [K in keyof RunProjectionRow]: null })>(PROJECT_RUN_EVENTS, [
      // One JSON document for the batch: no per-value array literal to escape (views are large).
      JSON.stringify(
        events.map((e) => ({
          run_id: e.runId,
          workflow_type: e.workflowType,
          user_id: e.userId,
          state: e.stateAfter,
          terminal: e.terminal,
          attempt_no: e.attemptNo,
          version: e.version,
          parent_run_id: e.parentRunId,
          view: e.view,
          occurred_at: e.occurredAt,
          first_at: e.changes[0]?.occurredAt ?? e.occurredAt,
          attempt_first_at: e.changes.find((c) => c.attemptNo === e.attemptNo)?.occurredAt ?? e.occurredAt,
        })),
      ),
      JSON.stringify(
        events.flatMap((e) =>
          e.changes.map((c) => ({
            run_id: e.runId,
            version: c.version,
            attempt_no: c.attemptNo,
            state_before: c.stateBefore,
            state_after: c.stateAfter,
            step_name: c.stepName,
            terminal: c.terminal,
            occurred_at: c.occurredAt,
            retry_scheduled: c.retryScheduled ?? null,
          })),
        ),
      ),
    ]);
    // One statement, one commit: a commit of the message path (the message budget counts it).
    messageCounters.commits += 1;
    const projected = new Map<string, RunProjection>();
    for (const row of rows) if (row.run_id !== null) projected.set(row.event_run_id, rowToProjection(row));
    return projected;
  }
}
