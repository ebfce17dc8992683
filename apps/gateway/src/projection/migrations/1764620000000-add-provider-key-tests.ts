import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A user's latest "Test" of each stored provider key, as the research service reported it (`ResearchProviderKeyTested`); a replaced key starts untested. */
export class AddProviderKeyTests1764620000000 implements MigrationInterface {
  name = 'AddProviderKeyTests1764620000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      alter table "gateway"."user_provider_keys"
        add column test_id uuid,
        add column test_requested_at timestamptz,
        add column tested_at timestamptz,
        add column test_outcome text,
        add column test_model text,
        add column test_latency_ms integer,
        add column test_reason text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      alter table "gateway"."user_provider_keys"
        drop column test_id, drop column test_requested_at, drop column tested_at, drop column test_outcome,
        drop column test_model, drop column test_latency_ms, drop column test_reason`);
  }
}
