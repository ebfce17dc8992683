import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spec 05 (ADR 0018): each user's research webhook as the gateway registered it, for
 * `GET /research/webhook` (no secret, sealed or not: the research service keeps that), with the
 * last delivery attempt the research service reported for it (`ResearchWebhookAttempted`). A
 * removal keeps the row without url, so its version still orders later settings.
 */
export class CreateResearchWebhooks1764610000000 implements MigrationInterface {
  name = 'CreateResearchWebhooks1764610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."research_webhooks" (
        user_id text primary key,
        url text,
        secret_set boolean not null,
        version bigint not null,
        created_at timestamptz,
        updated_at timestamptz not null,
        last_event_id text,
        last_event_type text,
        last_attempt integer,
        last_attempted_at timestamptz,
        last_outcome text check (last_outcome in ('delivered', 'retrying', 'failed')),
        last_reason text,
        check ((url is null) = (created_at is null))
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."research_webhooks"`);
  }
}
