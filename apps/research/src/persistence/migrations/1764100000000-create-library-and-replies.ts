import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateLibraryAndReplies1764100000000 implements MigrationInterface {
  name = 'CreateLibraryAndReplies1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "research"."library_references" (
        user_id text not null,
        reference_id text not null,
        citation_key text not null,
        entry_type text not null,
        title text not null,
        authors jsonb not null default '[]',
        authors_text text not null default '',
        year integer null,
        venue text null,
        abstract text null,
        doi text null,
        arxiv_id text null,
        pmid text null,
        url text null,
        keywords text[] not null default '{}',
        keywords_text text not null default '',
        search tsvector generated always as (
          setweight(to_tsvector('english', title), 'A') ||
          setweight(to_tsvector('english', keywords_text), 'B') ||
          setweight(to_tsvector('english', coalesce(abstract, '')), 'C') ||
          setweight(to_tsvector('simple', authors_text || ' ' || coalesce(venue, '')), 'D')
        ) stored,
        imported_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (user_id, reference_id)
      )`);
    await queryRunner.query(`create index library_references_search on "research"."library_references" using gin (search)`);
    await queryRunner.query(`
      create table "research"."paper_search_replies" (
        command_id text primary key,
        subject text not null,
        reply jsonb not null,
        created_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "research"."paper_search_replies"`);
    await queryRunner.query(`drop table "research"."library_references"`);
  }
}
