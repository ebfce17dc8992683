import { Inject, Injectable } from '@nestjs/common';
import type { MessageData, RunStateChanged } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from './database.js';
import { type PreparedSql, preparedSql } from './prepared-sql.js';
import { RUN_PROJECTION_TABLE } from './run-projection.store.js';
import { RUN_TRANSITIONS_TABLE } from './run-transition.store.js';

/** How many recently projected events this process remembers, so it does not project one twice. */
export const REMEMBERED_EVENTS = 4_096;

/**
 * One statement, one round trip and one commit per event (the event's transition in the timeline, and
 * the run's row):
 *  - `transition`: the timeline keeps every transition, idempotent by (run, version);
 *  - `newer`: the run's row moves to the event when it is newer than the row (by `version`), so
 *    redeliveries and reordering are harmless; `created_at` keeps the earliest time seen;
 *    `attempt_started_at` moves to the event's time when the attempt number grows;
 *  - `earlier_times`: an older event arriving late (the consumer applies in any order) still carries
 *    the earliest times. It runs only when `newer` changed nothing, so no row is written twice.
 * Answers whether the run's row moved to this event.
 */
const PROJECT_RUN_EVENT = `
  with transition as (
    insert into ${RUN_TRANSITIONS_TABLE} (run_id, version, attempt_no, state_before, state_after, step_name, terminal, occurred_at, retry_scheduled)
    values ($1, $7, $6, $11, $4, $12, $5, $10::timestamptz, $13::jsonb)
    on conflict (run_id, version) do nothing
  ), newer as (
    insert into ${RUN_PROJECTION_TABLE} as p
      (run_id, workflow_type, user_id, state, terminal, attempt_no, version, parent_run_id, view, created_at, updated_at, attempt_started_at)
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, date_trunc('milliseconds', $10::timestamptz), $10::timestamptz,
            date_trunc('milliseconds', $10::timestamptz))
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
    returning run_id
  ), earlier_times as (
    update ${RUN_PROJECTION_TABLE} set
      created_at = least(created_at, date_trunc('milliseconds', $10::timestamptz)),
      attempt_started_at = case when attempt_no = $6 then least(attempt_started_at, date_trunc('milliseconds', $10::timestamptz))
                                else attempt_started_at end
    where run_id = $1
      and not exists (select 1 from newer)
      and (created_at > $10::timestamptz or (attempt_no = $6 and attempt_started_at > $10::timestamptz))
  )
  select exists (select 1 from newer) as applied`;

/**
 * Writes one run event into the gateway's projection: the timeline keeps every transition
 * (idempotent by version), the run's row keeps the newest. The write is idempotent, so the durable
 * consumer and the live feeder may apply the same event in any order.
 *
 * Both do, on the replica that holds a watcher of the run: the feeder writes through first, then the
 * consumer gets the same event. An event this process has already projected (or is projecting) is not
 * written again: the second apply waits for the first and changes nothing, as it would in the database.
 */
@Injectable()
export class RunEventApplier {
  private readonly sql: PreparedSql;
  /** Events projected or being projected, by run and version, oldest first (bounded). */
  private readonly projected = new Map<string, Promise<boolean>>();

  constructor(@Inject(GATEWAY_DATA_SOURCE) dataSource: DataSource) {
    this.sql = preparedSql(dataSource, 'gateway_run_event');
  }

  /** Returns whether the run's row changed to this event (false for an event already projected). */
  async apply(event: MessageData<typeof RunStateChanged>): Promise<boolean> {
    const key = `${event.runId}:${event.version}`;
    const earlier = this.projected.get(key);
    // A failed earlier apply is no answer: this one writes the event itself.
    if (earlier !== undefined && (await earlier.then(() => true, () => false))) return false;
    const projecting = this.project(event);
    this.remember(key, projecting);
    try {
      return await projecting;
    } catch (error) {
      if (this.projected.get(key) === projecting) this.projected.delete(key);
      throw error;
    }
  }

  private async project(event: MessageData<typeof RunStateChanged>): Promise<boolean> {
    const rows = await this.sql.query<{ applied: boolean }>(PROJECT_RUN_EVENT, [
      event.runId,
      event.workflowType,
      event.userId,
      event.stateAfter,
      event.terminal,
      event.attemptNo,
      event.version,
      event.parentRunId,
      JSON.stringify(event.view),
      event.occurredAt,
      event.stateBefore,
      event.stepName,
      event.retryScheduled === undefined ? null : JSON.stringify(event.retryScheduled),
    ]);
    return rows[0]?.applied === true;
  }

  private remember(key: string, projecting: Promise<boolean>): void {
    this.projected.delete(key);
    this.projected.set(key, projecting);
    if (this.projected.size <= REMEMBERED_EVENTS) return;
    const oldest = this.projected.keys().next();
    if (oldest.done !== true) this.projected.delete(oldest.value);
  }
}
