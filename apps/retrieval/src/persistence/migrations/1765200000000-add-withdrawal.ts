import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Withdrawn problems (issue 24): a problem whose stored reading is not today's (the maths reading sweep,
 * `WithdrawProblem`) stays in the catalogue with when and why, and no tier serves it any more; a copy
 * of its text then misses and is solved afresh. Mirrors `PROBLEM_CATALOG_DDL`.
 */
export class AddWithdrawal1765200000000 implements MigrationInterface {
  name = 'AddWithdrawal1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "retrieval"."indexed_problems" add column withdrawn_at timestamptz, add column withdrawn_reason text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "retrieval"."indexed_problems" drop column withdrawn_at, drop column withdrawn_reason`);
  }
}
