import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Issue 29: the ends of paper-search runs (from `RunEnded`), from which their stored paper lists are swept after the retention. */
export class CreatePaperSetRunEnds1764600000000 implements MigrationInterface {
  name = 'CreatePaperSetRunEnds1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "research"."paper_set_run_ends" (
        run_id uuid primary key,
        ended_at timestamptz not null
      )`);
    await queryRunner.query(`create index paper_set_run_ends_ended_at on "research"."paper_set_run_ends" (ended_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "research"."paper_set_run_ends"`);
  }
}
