import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateRunProjection1763800000000 implements MigrationInterface {
  name = 'CreateRunProjection1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."run_projection" (
        run_id uuid primary key,
        workflow_type text not null,
        user_id text not null,
        state text not null,
        terminal boolean not null,
        attempt_no integer not null,
        version integer not null,
        parent_run_id uuid null,
        view jsonb not null default '{}'::jsonb,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    // Serves "the caller's runs, newest first" with keyset pagination.
    await queryRunner.query(
      `create index run_projection_user_created on "gateway"."run_projection" (user_id, created_at desc, run_id desc)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."run_projection"`);
  }
}
