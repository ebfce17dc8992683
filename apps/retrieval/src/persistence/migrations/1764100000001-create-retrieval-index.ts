import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retrieval index's tables. `indexed_problems` and `embedded_vectors` are the tables the domain's
 * PostgreSQL stores work on (`PROBLEM_CATALOG_DDL` in domain/pg-problem-catalog.ts and
 * `EMBEDDED_VECTORS_DDL` in domain/pg-vector-store.ts), adopted here verbatim as of this migration; a
 * later change to them is a new migration, never an edit of this one.
 */
export class CreateRetrievalIndex1764100000001 implements MigrationInterface {
  name = 'CreateRetrievalIndex1764100000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "retrieval"."indexed_problems" (
        doc_id            bigint generated always as identity unique,
        asset_version_id  text primary key,
        problem_id        text,
        normalised_text   text not null,
        text_sha256       text not null,
        image_sha256      text,
        phash             bigint,
        phash_version     text,
        quality           smallint,
        text_dominant     boolean not null default false,
        subject           text,
        keywords          text[] not null default '{}',
        search_vector     tsvector generated always as (to_tsvector('english', normalised_text)) stored,
        indexed_at        timestamptz not null default now(),
        updated_at        timestamptz not null default now()
      )`);
    await queryRunner.query(`create index indexed_problems_text_sha256_idx on "retrieval"."indexed_problems" (text_sha256)`);
    await queryRunner.query(
      `create index indexed_problems_image_sha256_idx on "retrieval"."indexed_problems" (image_sha256) where image_sha256 is not null`,
    );
    await queryRunner.query(
      `create index indexed_problems_phash_idx on "retrieval"."indexed_problems" (phash_version, doc_id) where phash is not null`,
    );
    await queryRunner.query(`create index indexed_problems_search_idx on "retrieval"."indexed_problems" using gin (search_vector)`);
    // Other replicas catch up with what this one indexed by reading the rows changed since they last looked.
    await queryRunner.query(`create index indexed_problems_updated_idx on "retrieval"."indexed_problems" (updated_at, asset_version_id)`);
    await queryRunner.query(`
      create table "retrieval"."embedded_vectors" (
        id          text primary key,
        dimension   integer not null check (dimension > 0),
        vector      bytea not null check (octet_length(vector) = 4 * dimension),
        payload     jsonb not null,
        updated_at  timestamptz not null default now()
      )`);
    await queryRunner.query(`create index embedded_vectors_updated_idx on "retrieval"."embedded_vectors" (updated_at, id)`);
    // Which embedder the stored vectors (embedded or in Qdrant) came from: vectors of another model are
    // not comparable, so the service refuses to start with a different one over a non-empty index.
    await queryRunner.query(`
      create table "retrieval"."vector_space" (
        id              smallint primary key default 1 check (id = 1),
        embedder_model  text not null,
        dimension       integer not null check (dimension > 0),
        updated_at      timestamptz not null default now()
      )`);
    await queryRunner.query(`
      create table "retrieval"."command_replies" (
        command_id  text primary key,
        reply_type  text not null check (reply_type in ('RetrievalHit', 'RetrievalMiss', 'DocumentIndexed')),
        reply       jsonb not null,
        created_at  timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "retrieval"."command_replies"`);
    await queryRunner.query(`drop table "retrieval"."vector_space"`);
    await queryRunner.query(`drop table "retrieval"."embedded_vectors"`);
    await queryRunner.query(`drop table "retrieval"."indexed_problems"`);
  }
}
