import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retry a run event scheduled (`RunStateChanged.retryScheduled`: the failed try, why, when the
 * next goes), kept with the transition: the run page's pending step and timeline show it. Null for
 * the transitions recorded before, and for every change that scheduled no retry.
 */
export class KeepScheduledRetries1764520000000 implements MigrationInterface {
  name = 'KeepScheduledRetries1764520000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "gateway"."run_transitions" add column retry_scheduled jsonb null`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "gateway"."run_transitions" drop column retry_scheduled`);
  }
}
