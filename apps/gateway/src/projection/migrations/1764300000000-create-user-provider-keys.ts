import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Spec 05: per-user provider API keys, AES-256-GCM ciphertext only (ADR 0014). */
export class CreateUserProviderKeys1764300000000 implements MigrationInterface {
  name = 'CreateUserProviderKeys1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."user_provider_keys" (
        user_id text not null,
        provider text not null check (provider in ('openai', 'anthropic', 'gemini')),
        ciphertext text not null,
        updated_at timestamptz not null default now(),
        primary key (user_id, provider)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."user_provider_keys"`);
  }
}
