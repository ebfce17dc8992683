import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One solve attempt of a run (schema `solve`): the idempotency record of `GenerateSolution`.
 * `in_progress` (claimed) → `answered` (the model's answer is kept, so a retried delivery does not
 * ask again) → `done` (the reply is kept and republished verbatim on any redelivery).
 */
@Entity({ name: 'solution_attempts' })
export class SolutionAttemptEntity {
  @PrimaryColumn('uuid', { name: 'run_id' })
  runId!: string;

  @PrimaryColumn('integer')
  attempt!: number;

  /** The command that last claimed the attempt. */
  @Column('text', { name: 'command_id' })
  commandId!: string;

  @Column('text')
  status!: 'in_progress' | 'answered' | 'done';

  /** When the current claim was taken (informational: the lease below decides who holds it). */
  @Column('timestamptz', { name: 'claimed_at' })
  claimedAt!: Date;

  /** The current claim's token: only its holder renews it, keeps the answer or completes. */
  @Column('uuid', { name: 'lease_token', nullable: true })
  leaseToken!: string | null;

  /** Until when the current claim is its holder's; renewed by the holder's heartbeat. */
  @Column('timestamptz', { name: 'lease_expires_at' })
  leaseExpiresAt!: Date;

  @Column('jsonb', { nullable: true })
  answer!: unknown;

  /** The failure's code when the reply is `SolutionFailed`. */
  @Column('text', { name: 'error_code', nullable: true })
  errorCode!: string | null;

  @Column('jsonb', { nullable: true })
  reply!: unknown;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}
