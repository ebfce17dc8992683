import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Admission control counts each user's runs not yet ended at every submission: a partial index keeps that cheap. */
export class IndexRunsInFlight1764100000000 implements MigrationInterface {
  name = 'IndexRunsInFlight1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`create index run_projection_in_flight on "gateway"."run_projection" (workflow_type, user_id) where not terminal`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop index "gateway"."run_projection_in_flight"`);
  }
}
