import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The subscription tier each run was admitted under (issue 17: in-flight runs per tier on the ops
 * page). The tier is a token claim the run events do not carry, so the gateway keeps it when it admits.
 */
export class CreateRunAdmissions1764530000000 implements MigrationInterface {
  name = 'CreateRunAdmissions1764530000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."run_admissions" (
        run_id uuid primary key,
        user_id text not null,
        tier text not null,
        admitted_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."run_admissions"`);
  }
}
