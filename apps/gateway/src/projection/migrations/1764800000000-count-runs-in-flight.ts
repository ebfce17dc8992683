import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Which projection rows are in flight: not ended, and not a research draft (spec 05: it waits for its user and runs nothing). */
const IN_FLIGHT = (row: string): string => `not ${row}.terminal and not (${row}.workflow_type = 'research' and ${row}.state = 'draft')`;

/**
 * Each user's runs in flight, per workflow type, kept as counters beside the projection (issue 23).
 * Admission read them with a count at every start, and that count read every run of the user in
 * flight (1.3–1.8 ms a start in the hit-path bench, whose one user holds every run). The counters
 * are kept by statement triggers on `run_projection`, in the transaction of the write that moves a
 * row in or out of flight, so they agree with the projection whichever gateway replica (or an old
 * release's, during a rolling update) writes it, and a crash loses nothing a commit kept.
 * A counter that falls to 0 is deleted, so everyone's count reads only users with runs in flight.
 * Deltas are applied in key order: two writes lock the counters they share in the same order.
 */
export class CountRunsInFlight1764800000000 implements MigrationInterface {
  name = 'CountRunsInFlight1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."run_in_flight_counts" (
        user_id text not null,
        workflow_type text not null,
        runs integer not null,
        primary key (user_id, workflow_type)
      )`);
    // One function per event: PostgreSQL allows transition tables on a trigger of one event only.
    // Each reads its transition tables directly (a row moved within flight counts -1 and +1: no write).
    const triggers: ReadonlyArray<{ readonly event: 'insert' | 'update' | 'delete'; readonly deltas: string }> = [
      { event: 'insert', deltas: `select n.user_id, n.workflow_type, 1 as delta from new_rows n where ${IN_FLIGHT('n')}` },
      {
        event: 'update',
        deltas: `select n.user_id, n.workflow_type, 1 as delta from new_rows n where ${IN_FLIGHT('n')}
                 union all select o.user_id, o.workflow_type, -1 from old_rows o where ${IN_FLIGHT('o')}`,
      },
      { event: 'delete', deltas: `select o.user_id, o.workflow_type, -1 as delta from old_rows o where ${IN_FLIGHT('o')}` },
    ];
    for (const { event, deltas } of triggers) {
      await queryRunner.query(`
        create function "gateway"."count_runs_in_flight_on_${event}"() returns trigger language plpgsql as $$
        declare
          emptied_users text[];
          emptied_types text[];
        begin
          with applied as (
            insert into "gateway"."run_in_flight_counts" as c (user_id, workflow_type, runs)
            select user_id, workflow_type, sum(delta)::integer from (${deltas}) d
            group by user_id, workflow_type having sum(delta) <> 0 order by user_id, workflow_type
            on conflict (user_id, workflow_type) do update set runs = c.runs + excluded.runs
            returning c.user_id, c.workflow_type, c.runs
          )
          select array_agg(user_id), array_agg(workflow_type) into emptied_users, emptied_types from applied where runs = 0;
          -- A statement of its own (the insert's updates are not visible to a delete beside it), sent only when needed.
          if emptied_users is not null then
            delete from "gateway"."run_in_flight_counts" c using unnest(emptied_users, emptied_types) as z(user_id, workflow_type)
            where c.user_id = z.user_id and c.workflow_type = z.workflow_type and c.runs = 0;
          end if;
          return null;
        end $$`);
      const referencing = event === 'insert' ? 'new table as new_rows' : event === 'delete' ? 'old table as old_rows' : 'old table as old_rows new table as new_rows';
      await queryRunner.query(`
        create trigger run_projection_in_flight_${event} after ${event} on "gateway"."run_projection"
        referencing ${referencing} for each statement execute function "gateway"."count_runs_in_flight_on_${event}"()`);
    }
    // The rows written before the triggers, counted once with no write in between.
    await queryRunner.query(`lock table "gateway"."run_projection" in share row exclusive mode`);
    await queryRunner.query(`
      insert into "gateway"."run_in_flight_counts" (user_id, workflow_type, runs)
      select r.user_id, r.workflow_type, count(*) from "gateway"."run_projection" r where ${IN_FLIGHT('r')} group by 1, 2`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const event of ['insert', 'update', 'delete']) {
      await queryRunner.query(`drop trigger run_projection_in_flight_${event} on "gateway"."run_projection"`);
      await queryRunner.query(`drop function "gateway"."count_runs_in_flight_on_${event}"()`);
    }
    await queryRunner.query(`drop table "gateway"."run_in_flight_counts"`);
  }
}
