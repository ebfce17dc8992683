import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Issue 25: external reads per tenant and period, the counter behind the external-reading cap (`PgExternalReadQuota`). */
export class AddExternalReads1765100000000 implements MigrationInterface {
  name = 'AddExternalReads1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "ingestion"."external_reads" (
        user_id text not null,
        period text not null,
        calls integer not null check (calls >= 0),
        updated_at timestamptz not null default now(),
        primary key (user_id, period)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "ingestion"."external_reads"`);
  }
}
