import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Spec 05: each user's optional research webhook (url and sealed secret); a removal keeps the row without url, so its version still orders later settings. */
export class CreateResearchWebhooks1764500000000 implements MigrationInterface {
  name = 'CreateResearchWebhooks1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "research"."research_webhooks" (
        user_id text primary key,
        url text,
        sealed_secret text,
        version bigint not null,
        updated_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "research"."research_webhooks"`);
  }
}
