import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 27: the provider's id of each research leg run in the provider's background (OpenAI's
 * background responses), by the leg's command id, so a leg redelivered after a rollout resumes its
 * response instead of starting, and billing, another. Swept with the kept replies' retention.
 */
export class CreateBackgroundCalls1764700000000 implements MigrationInterface {
  name = 'CreateBackgroundCalls1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "research"."background_calls" (
        idempotency_key text primary key,
        response_id text not null,
        created_at timestamptz not null default now()
      )`);
    await queryRunner.query(`create index background_calls_created_at on "research"."background_calls" (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "research"."background_calls"`);
  }
}
