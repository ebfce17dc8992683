import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Maths signature v3 (issue 24): the hash is name-free, so each indexed problem keeps its unknowns'
 * names in canonical order; a hit maps them onto the query's. Rows indexed before have none: they are
 * found by the query's v2 hash (`previousHash`), which holds the names. Mirrors `PROBLEM_CATALOG_DDL`.
 */
export class AddMathsUnknowns1765000000000 implements MigrationInterface {
  name = 'AddMathsUnknowns1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "retrieval"."indexed_problems" add column maths_unknowns text[]`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "retrieval"."indexed_problems" drop column maths_unknowns`);
  }
}
