import { Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** TypeORM mappings of the coordinator's tables (schema `coordinator`), for reads and tooling. */
@Entity({ name: 'workflow_runs' })
@Index(['type', 'state'])
export class WorkflowRunEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') type!: string;
  @Column('text') state!: string;
  @Column('int', { name: 'attempt_no' }) attemptNo!: number;
  @Column('text', { name: 'idempotency_key', unique: true }) idempotencyKey!: string;
  @Column('text', { name: 'user_id' }) userId!: string;
  @Column('uuid', { name: 'parent_run_id', nullable: true }) parentRunId!: string | null;
  @Column('jsonb') data!: unknown;
  @Column('int') version!: number;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

@Entity({ name: 'workflow_step_logs' })
@Index(['workflowRunId', 'id'])
export class WorkflowStepLogEntity {
  /** Surrogate key: keeps rows of one transaction in the order they were appended. */
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id!: string;
  @Column('uuid', { name: 'workflow_run_id' }) workflowRunId!: string;
  @Column('text', { name: 'workflow_type' }) workflowType!: string;
  @Column('int', { name: 'attempt_no' }) attemptNo!: number;
  @Column('text', { name: 'step_name' }) stepName!: string;
  @Column('text', { name: 'state_before', nullable: true }) stateBefore!: string | null;
  @Column('text', { name: 'state_after' }) stateAfter!: string;
  @Column('jsonb') payload!: Record<string, unknown>;
  @Column('timestamptz', { name: 'occurred_at' }) occurredAt!: Date;
}

@Entity({ name: 'inbox' })
export class InboxEntity {
  @PrimaryColumn('text', { name: 'message_id' }) messageId!: string;
  @Column('timestamptz', { name: 'processed_at', default: () => 'now()' }) processedAt!: Date;
}

@Entity({ name: 'outbox' })
export class OutboxEntity {
  @PrimaryColumn('text', { name: 'msg_id' }) msgId!: string;
  @Column('text') subject!: string;
  @Column('jsonb') envelope!: Record<string, unknown>;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}

@Entity({ name: 'timers' })
export class TimerEntity {
  @PrimaryColumn('uuid', { name: 'run_id' }) runId!: string;
  @PrimaryColumn('text') name!: string;
  @Index() @Column('timestamptz', { name: 'fire_at' }) fireAt!: Date;
  @Column('jsonb') payload!: Record<string, unknown>;
}

/** An idempotency key a run claimed (`claimKey`): one holder per (workflow type, user, key). */
@Entity({ name: 'run_keys' })
export class RunKeyEntity {
  @PrimaryColumn('text', { name: 'workflow_type' }) workflowType!: string;
  @PrimaryColumn('text', { name: 'user_id' }) userId!: string;
  @PrimaryColumn('text') key!: string;
  @Index() @Column('uuid', { name: 'run_id' }) runId!: string;
  @Column('timestamptz', { name: 'claimed_at' }) claimedAt!: Date;
  /** Claimants waiting for the holder to end (told by a key-holder-ended timer, then cleared). */
  @Column('uuid', { array: true, default: () => "'{}'" }) waiters!: string[];
}

export const coordinatorEntities = [WorkflowRunEntity, WorkflowStepLogEntity, InboxEntity, OutboxEntity, TimerEntity, RunKeyEntity];
