import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAssetRegistry1764000000001 implements MigrationInterface {
  name = 'CreateAssetRegistry1764000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "assets"."problems" (
        id uuid primary key,
        signature_key text not null constraint problems_signature_key unique,
        normalized_text text not null,
        text_sha256 text not null,
        image_sha256 text null,
        phash text null,
        phash_version text null,
        subject text not null,
        keywords jsonb not null default '[]'::jsonb,
        created_by_run_id uuid not null,
        created_at timestamptz not null default now()
      )`);
    await queryRunner.query(`
      create table "assets"."asset_versions" (
        id uuid primary key,
        problem_id uuid not null references "assets"."problems" (id),
        asset_type text not null check (asset_type in ('solution_html', 'video')),
        version integer not null check (version > 0),
        storage_key text not null,
        content_type text not null,
        content_sha256 text not null check (content_sha256 ~ '^[0-9a-f]{64}$'),
        provenance jsonb not null,
        source_run_id uuid not null,
        parent_asset_version_id uuid null references "assets"."asset_versions" (id),
        created_at timestamptz not null default now(),
        constraint asset_versions_problem_type_version unique (problem_id, asset_type, version),
        constraint asset_versions_run_type unique (source_run_id, asset_type),
        constraint asset_versions_video_has_parent check ((asset_type = 'video') = (parent_asset_version_id is not null))
      )`);
    await queryRunner.query(`create index asset_versions_parent on "assets"."asset_versions" (parent_asset_version_id)`);
    await queryRunner.query(`
      create table "assets"."command_replies" (
        command_id text primary key,
        replies jsonb not null,
        created_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "assets"."command_replies"`);
    await queryRunner.query(`drop table "assets"."asset_versions"`);
    await queryRunner.query(`drop table "assets"."problems"`);
  }
}
