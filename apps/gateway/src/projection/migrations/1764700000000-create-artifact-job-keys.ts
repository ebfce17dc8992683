import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The artifact job each (user, `Idempotency-Key`) of `POST /ai/chat` named (issue 27): an artifact
 * job's run id comes from its fingerprint's sequence, not from the key, so a retry after the first
 * job ended would otherwise start the next job. Written before the job's `StartRun` is sent; the
 * `StartRun`'s input is kept so a repeat can send it again when the gateway stopped in between.
 */
export class CreateArtifactJobKeys1764700000000 implements MigrationInterface {
  name = 'CreateArtifactJobKeys1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      create table "gateway"."artifact_job_keys" (
        user_id text not null,
        idempotency_key text not null,
        job_id uuid not null,
        sequence integer not null,
        request_digest text not null,
        start_input jsonb,
        created_at timestamptz not null default now(),
        primary key (user_id, idempotency_key)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`drop table "gateway"."artifact_job_keys"`);
  }
}
