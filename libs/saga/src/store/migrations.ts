import type { MigrationInterface, QueryRunner } from 'typeorm';
import { registerSchemaMigrations } from '@openpaw/persistence';

export class CoordinatorInitial1763800000000 implements MigrationInterface {
  name = 'CoordinatorInitial1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table workflow_runs (
        id uuid primary key,
        type text not null,
        state text not null,
        attempt_no int not null,
        idempotency_key text not null unique,
        user_id text not null,
        parent_run_id uuid,
        data jsonb not null,
        version int not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    await queryRunner.query(`create index workflow_runs_type_state on workflow_runs (type, state)`);
    await queryRunner.query(`create index workflow_runs_parent on workflow_runs (parent_run_id) where parent_run_id is not null`);
    await queryRunner.query(`
      create table workflow_step_logs (
        id bigint generated always as identity primary key,
        workflow_run_id uuid not null,
        workflow_type text not null,
        attempt_no int not null,
        step_name text not null,
        state_before text,
        state_after text not null,
        payload jsonb not null,
        occurred_at timestamptz not null
      )`);
    await queryRunner.query(`create index workflow_step_logs_run on workflow_step_logs (workflow_run_id, id)`);
    await queryRunner.query(`create table inbox (message_id text primary key, processed_at timestamptz not null default now())`);
    await queryRunner.query(`create index inbox_processed_at on inbox (processed_at)`);
    await queryRunner.query(`
      create table outbox (
        msg_id text primary key,
        subject text not null,
        envelope jsonb not null,
        created_at timestamptz not null default now()
      )`);
    await queryRunner.query(`create index outbox_created_at on outbox (created_at)`);
    await queryRunner.query(`
      create table timers (
        run_id uuid not null,
        name text not null,
        fire_at timestamptz not null,
        payload jsonb not null,
        primary key (run_id, name)
      )`);
    await queryRunner.query(`create index timers_fire_at on timers (fire_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['timers', 'outbox', 'inbox', 'workflow_step_logs', 'workflow_runs']) {
      await queryRunner.query(`drop table if exists ${table}`);
    }
  }
}

/** Idempotency key claims (ADR 0016): one holder per (workflow type, user, key), and who waits for it. */
export class CoordinatorRunKeys1764000000000 implements MigrationInterface {
  name = 'CoordinatorRunKeys1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table run_keys (
        workflow_type text not null,
        user_id text not null,
        key text not null,
        run_id uuid not null,
        claimed_at timestamptz not null,
        waiters uuid[] not null default '{}',
        primary key (workflow_type, user_id, key)
      )`);
    await queryRunner.query(`create index run_keys_run on run_keys (run_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table if exists run_keys`);
  }
}

/** The SQLSTATE `saga_batch_guard` raises: not an error of the batch's inputs, a reason to decide them again. */
export const BATCH_GUARD_SQLSTATE = 'OPG01';

/**
 * The guard of a batch decided from runs held in memory (SagaStore's one-round-trip path): the batch's
 * write calls it last, and when the inbox or a run's version shows the decision was made from a stale
 * view it raises `OPG01`, which aborts the write and the COMMIT behind it; the batch is then decided
 * again on the locking path.
 */
export class CoordinatorBatchGuard1765000000000 implements MigrationInterface {
  name = 'CoordinatorBatchGuard1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create or replace function saga_batch_guard(fresh_inputs bigint, inputs int, current_runs bigint, runs int) returns boolean
      language plpgsql as $$
      begin
        if fresh_inputs <> inputs or current_runs <> runs then
          raise exception 'batch decided from a stale view: % of % inputs new, % of % runs at the version decided from', fresh_inputs, inputs, current_runs, runs
            using errcode = '${BATCH_GUARD_SQLSTATE}';
        end if;
        return true;
      end $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop function if exists saga_batch_guard(bigint, int, bigint, int)`);
  }
}

/**
 * The guard of a batch decided without reading its runs, when it also starts runs, claims keys or ends
 * claim holders (issue 23: the hit path's three batches, each one round trip): besides the inbox and the
 * known runs' versions, every run it starts must be new, every key it claims free, and no run may wait
 * on a key of a holder it ends. The four-argument guard stays for coordinators of the previous release
 * during a rolling upgrade.
 */
export class CoordinatorBatchGuardClaims1766000000000 implements MigrationInterface {
  name = 'CoordinatorBatchGuardClaims1766000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create or replace function saga_batch_guard(fresh_inputs bigint, inputs int, current_runs bigint, runs int, free_keys bigint, keys int, waited_holders bigint) returns boolean
      language plpgsql as $$
      begin
        if fresh_inputs <> inputs or current_runs <> runs or free_keys <> keys or waited_holders > 0 then
          raise exception 'batch decided from a stale view: % of % inputs new, % of % runs as decided, % of % keys free, % ended holders waited on',
            fresh_inputs, inputs, current_runs, runs, free_keys, keys, waited_holders
            using errcode = '${BATCH_GUARD_SQLSTATE}';
        end if;
        return true;
      end $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop function if exists saga_batch_guard(bigint, int, bigint, int, bigint, int, bigint)`);
  }
}

export const coordinatorMigrations = registerSchemaMigrations('coordinator', [
  CoordinatorInitial1763800000000,
  CoordinatorRunKeys1764000000000,
  CoordinatorBatchGuard1765000000000,
  CoordinatorBatchGuardClaims1766000000000,
]);
