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

  @Column('timestamptz', { name: 'claimed_at' })
  claimedAt!: Date;

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
