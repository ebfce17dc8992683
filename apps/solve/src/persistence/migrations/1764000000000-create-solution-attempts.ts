import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSolutionAttempts1764000000000 implements MigrationInterface {
  name = 'CreateSolutionAttempts1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "solve"."solution_attempts" (
        run_id uuid not null,
        attempt integer not null check (attempt > 0),
        command_id text not null,
        status text not null check (status in ('in_progress', 'answered', 'done')),
        claimed_at timestamptz not null,
        answer jsonb null,
        error_code text null,
        reply jsonb null check ((status = 'done') = (reply is not null)),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (run_id, attempt)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "solve"."solution_attempts"`);
  }
}
