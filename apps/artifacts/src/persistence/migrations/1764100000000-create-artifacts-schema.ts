import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateArtifactsSchema1764100000000 implements MigrationInterface {
  name = 'CreateArtifactsSchema1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "artifacts"."sources" (
        source_id uuid primary key,
        user_id text not null,
        notebook_id text not null,
        kind text not null check (kind in ('text', 'url', 'file')),
        title text not null,
        uri text null,
        content_sha256 text not null,
        text text not null,
        revision_at timestamptz not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    await queryRunner.query(`create index sources_notebook on "artifacts"."sources" (user_id, notebook_id)`);
    await queryRunner.query(`
      create table "artifacts"."chunks" (
        chunk_id text primary key,
        source_id uuid not null references "artifacts"."sources" (source_id) on delete cascade,
        user_id text not null,
        notebook_id text not null,
        ordinal integer not null check (ordinal >= 0),
        text text not null,
        embedding bytea not null,
        embedding_version text not null,
        created_at timestamptz not null default now()
      )`);
    await queryRunner.query(`create index chunks_notebook on "artifacts"."chunks" (user_id, notebook_id, embedding_version)`);
    await queryRunner.query(`create index chunks_source on "artifacts"."chunks" (source_id)`);
    await queryRunner.query(`
      create table "artifacts"."command_replies" (
        command_id text primary key,
        subject text not null,
        replies jsonb not null,
        created_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "artifacts"."command_replies"`);
    await queryRunner.query(`drop table "artifacts"."chunks"`);
    await queryRunner.query(`drop table "artifacts"."sources"`);
  }
}
