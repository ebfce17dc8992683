import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Saved views of the runs list (issue 17): a user's named filter sets, one name once per user. */
export class CreateSavedRunViews1764510000000 implements MigrationInterface {
  name = 'CreateSavedRunViews1764510000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."saved_run_views" (
        user_id text not null,
        name text not null,
        filter jsonb not null,
        created_at timestamptz not null default now(),
        primary key (user_id, name)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."saved_run_views"`);
  }
}
