import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every state change of every run, as the run events told it: the timeline of a run's detail page. */
export class CreateRunTransitions1764200000000 implements MigrationInterface {
  name = 'CreateRunTransitions1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."run_transitions" (
        run_id uuid not null,
        version integer not null,
        attempt_no integer not null,
        state_before text null,
        state_after text not null,
        step_name text not null,
        terminal boolean not null,
        occurred_at timestamptz not null,
        primary key (run_id, version)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."run_transitions"`);
  }
}
