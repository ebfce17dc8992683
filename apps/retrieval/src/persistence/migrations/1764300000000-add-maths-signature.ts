import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The maths-signature stage (issue 16, ADR 0007): each indexed problem keeps its canonical maths, looked up
 * by hash, and the numbers and reading confidence the stage and the number gate compare. Mirrors the
 * maths columns of `PROBLEM_CATALOG_DDL`.
 */
export class AddMathsSignature1764300000000 implements MigrationInterface {
  name = 'AddMathsSignature1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      alter table "retrieval"."indexed_problems"
        add column maths_hash text,
        add column maths_canonical text,
        add column maths_intent text,
        add column maths_numbers text[],
        add column maths_confidence double precision`);
    await queryRunner.query(
      `create index indexed_problems_maths_hash_idx on "retrieval"."indexed_problems" (maths_hash) where maths_hash is not null`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop index "retrieval"."indexed_problems_maths_hash_idx"`);
    await queryRunner.query(`
      alter table "retrieval"."indexed_problems"
        drop column maths_confidence, drop column maths_numbers, drop column maths_intent,
        drop column maths_canonical, drop column maths_hash`);
  }
}
