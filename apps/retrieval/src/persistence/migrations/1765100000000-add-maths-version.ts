import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Maths signature v4 (issue 24): each indexed problem keeps the signature version its maths key was
 * computed under. A key under an older version was computed by another reading of the maths, so it is
 * never looked up; the maths-reindex sweep selects the rows not at the current version and re-keys them
 * from their stored text. Rows indexed before this column have none (an older version). Mirrors
 * `PROBLEM_CATALOG_DDL`.
 */
export class AddMathsVersion1765100000000 implements MigrationInterface {
  name = 'AddMathsVersion1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "retrieval"."indexed_problems" add column maths_version text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "retrieval"."indexed_problems" drop column maths_version`);
  }
}
