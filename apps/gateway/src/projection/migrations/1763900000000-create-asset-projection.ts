import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The asset projection (fed by `asset.AssetVersionCreated` / `asset.VideoRendered`), the attempt
 * start of each run (for ETAs), and the indexes behind "which runs served this asset" and "recent
 * durations of a workflow type".
 */
export class CreateAssetProjection1763900000000 implements MigrationInterface {
  name = 'CreateAssetProjection1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "gateway"."run_projection" add column attempt_started_at timestamptz null`);
    // Asset visibility: a user sees an asset that one of their runs was served (view.output.asset_version_id).
    await queryRunner.query(
      `create index run_projection_output_asset on "gateway"."run_projection" ((view #>> '{output,asset_version_id}'), user_id)
         where (view #>> '{output,asset_version_id}') is not null`,
    );
    // ETAs: the most recent successful runs of a type.
    await queryRunner.query(
      `create index run_projection_type_succeeded on "gateway"."run_projection" (workflow_type, updated_at desc)
         where state = 'SUCCEEDED' and parent_run_id is null`,
    );
    await queryRunner.query(`
      create table "gateway"."asset_projection" (
        asset_version_id uuid primary key,
        problem_id uuid null,
        asset_type text not null,
        version integer null,
        storage_key text not null,
        content_type text not null,
        user_id text null,
        run_id uuid null,
        solution_asset_version_id uuid null,
        duration_ms integer null,
        created_at timestamptz not null
      )`);
    await queryRunner.query(
      `create index asset_projection_solution on "gateway"."asset_projection" (solution_asset_version_id)
         where solution_asset_version_id is not null`,
    );
    await queryRunner.query(
      `create index asset_projection_problem on "gateway"."asset_projection" (problem_id, asset_type, created_at desc)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."asset_projection"`);
    await queryRunner.query(`drop index "gateway"."run_projection_type_succeeded"`);
    await queryRunner.query(`drop index "gateway"."run_projection_output_asset"`);
    await queryRunner.query(`alter table "gateway"."run_projection" drop column attempt_started_at`);
  }
}
