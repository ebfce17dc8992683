import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What operators did through the operations API (redrives): who, when, what, how many. Append-only. */
export class CreateOperatorAudit1764400000000 implements MigrationInterface {
  name = 'CreateOperatorAudit1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."operator_audit" (
        id bigserial primary key,
        actor text not null,
        action text not null,
        target jsonb not null,
        affected integer not null,
        occurred_at timestamptz not null default now()
      )`);
    await queryRunner.query(`create index operator_audit_occurred_at on "gateway"."operator_audit" (occurred_at desc, id desc)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."operator_audit"`);
  }
}
