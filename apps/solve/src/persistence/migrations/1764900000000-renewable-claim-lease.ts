import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A renewable claim: `lease_token` names the delivery that holds the attempt (a renewal, the kept
 * answer and the reply are written only under it) and `lease_expires_at` is when another delivery
 * may take the attempt over, pushed forward by the holder's heartbeat.
 *
 * Additive, so the previous version keeps running during a rolling deploy. Its claims carry no
 * token and no expiry of their own and its holders do not renew: the default gives each of them
 * its old lease (the 100 s deadline + 30 s), so a new claimant does not take over a live old one.
 * Rows that exist now get the migration's time + 130 s, which is later than their old expiry.
 */
export class RenewableClaimLease1764900000000 implements MigrationInterface {
  name = 'RenewableClaimLease1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      alter table "solve"."solution_attempts"
        add column lease_token uuid null,
        add column lease_expires_at timestamptz not null default (now() + interval '130 seconds')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "solve"."solution_attempts" drop column lease_expires_at, drop column lease_token`);
  }
}
