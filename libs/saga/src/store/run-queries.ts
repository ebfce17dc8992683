import type { DataSource } from 'typeorm';
import type { RunRecord, StepLogRecord } from '../records.js';
import { WorkflowRunEntity, WorkflowStepLogEntity } from './entities.js';

/** A run and its step log in append order (for replay checks, admin tools and tests). */
export async function loadRunWithLogs(
  dataSource: DataSource,
  runId: string,
): Promise<{ run: RunRecord; logs: StepLogRecord[] } | undefined> {
  const run = await dataSource.getRepository(WorkflowRunEntity).findOneBy({ id: runId });
  if (run === null) return undefined;
  const logs = await dataSource.getRepository(WorkflowStepLogEntity).find({ where: { workflowRunId: runId }, order: { id: 'ASC' } });
  return {
    run: { ...run, parentRunId: run.parentRunId ?? null },
    logs: logs.map((l) => ({
      workflowRunId: l.workflowRunId,
      workflowType: l.workflowType,
      attemptNo: l.attemptNo,
      stepName: l.stepName,
      stateBefore: l.stateBefore,
      stateAfter: l.stateAfter,
      payload: l.payload,
      occurredAt: l.occurredAt,
    })),
  };
}
