import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Spec 05: the replies of the research flow's commands, kept per command id (a redelivery never calls a provider again). */
export class CreateResearchFlowReplies1764300000000 implements MigrationInterface {
  name = 'CreateResearchFlowReplies1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "research"."research_flow_replies" (
        command_id text primary key,
        subject text not null,
        reply jsonb not null,
        created_at timestamptz not null default now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "research"."research_flow_replies"`);
  }
}
