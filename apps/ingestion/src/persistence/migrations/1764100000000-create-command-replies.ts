import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCommandReplies1764100000000 implements MigrationInterface {
  name = 'CreateCommandReplies1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "ingestion"."command_replies" (
        command_id text primary key,
        reply_type text not null check (reply_type in ('MediaNormalized', 'MediaRejected')),
        reply jsonb not null,
        created_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "ingestion"."command_replies"`);
  }
}
