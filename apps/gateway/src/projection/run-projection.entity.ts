import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The gateway's schema: its own projection, never another service's tables. */
export const GATEWAY_SCHEMA = 'gateway';

/**
 * The gateway's read model of one run, built from the coordinator's `RunStateChanged` events.
 * A row only moves forward: an event is applied when its `version` is newer than the row's.
 */
@Entity({ name: 'run_projection' })
@Index('run_projection_user_created', ['userId', 'createdAt', 'runId'])
export class RunProjectionEntity {
  @PrimaryColumn('uuid', { name: 'run_id' })
  runId!: string;

  @Column('text', { name: 'workflow_type' })
  workflowType!: string;

  @Column('text', { name: 'user_id' })
  userId!: string;

  @Column('text')
  state!: string;

  @Column('boolean')
  terminal!: boolean;

  @Column('integer', { name: 'attempt_no' })
  attemptNo!: number;

  @Column('integer')
  version!: number;

  @Column('uuid', { name: 'parent_run_id', nullable: true })
  parentRunId!: string | null;

  @Column('jsonb')
  view!: Record<string, unknown>;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;

  /** When the current attempt started (as far as the projection saw): the first event of its attempt number. */
  @Column('timestamptz', { name: 'attempt_started_at', nullable: true })
  attemptStartedAt!: Date | null;
}
