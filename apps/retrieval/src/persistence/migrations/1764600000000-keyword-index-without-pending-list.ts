import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The keyword index without GIN's pending list (issue 16, bench/ingestion-retrieval "Hybrid search").
 * With `fastupdate` on, new rows wait in an unsorted pending list (up to `gin_pending_list_limit`, 4 MB)
 * that every full-text query scans in full until vacuum merges it: at 100k problems the keyword stage
 * took 50 ms p50 with a filled list and 5 ms after merging it. Problems are indexed once each and
 * searched many times, so inserts pay instead. Mirrors `PROBLEM_CATALOG_DDL`.
 */
export class KeywordIndexWithoutPendingList1764600000000 implements MigrationInterface {
  name = 'KeywordIndexWithoutPendingList1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter index "retrieval"."indexed_problems_search_idx" set (fastupdate = off)`);
    // Turning fastupdate off does not merge what is already pending; this does.
    await queryRunner.query(`select gin_clean_pending_list('retrieval.indexed_problems_search_idx'::regclass)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter index "retrieval"."indexed_problems_search_idx" reset (fastupdate)`);
  }
}
