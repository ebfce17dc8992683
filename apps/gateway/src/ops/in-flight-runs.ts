import { RESEARCH_WORKFLOW } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';
import { RESEARCH_DRAFT_STATE, USER_STARTED_WORKFLOWS } from '../admission/admission-control.js';
import { RUN_ADMISSIONS_TABLE, RUN_PROJECTION_TABLE } from '../projection/run-projection.store.js';

/** The tier shown for a run whose admission left no tier (started by a route that does not record it, or lost). */
export const TIER_NOT_RECORDED = 'not recorded';

export interface InFlightRuns {
  /** Runs users started and that have not ended, by the tier they were admitted under (as admission counts them). */
  readonly byTier: readonly { readonly tier: string; readonly runs: number }[];
  /** Every run not ended (child and background runs too), by workflow type: which lanes they occupy. */
  readonly byWorkflow: readonly { readonly workflowType: string; readonly runs: number }[];
}

/** Counts from the gateway's own projection and admissions (never the coordinator's tables). */
export async function readInFlightRuns(dataSource: DataSource): Promise<InFlightRuns> {
  const [byTier, byWorkflow] = await Promise.all([
    dataSource.query<{ tier: string; runs: number }[]>(
      `select coalesce(a.tier, $4) as tier, count(*)::int as runs
         from ${RUN_PROJECTION_TABLE} p left join ${RUN_ADMISSIONS_TABLE} a on a.run_id = p.run_id
        where not p.terminal and p.workflow_type = any($1::text[]) and not (p.workflow_type = $2 and p.state = $3)
        group by 1 order by 1`,
      [USER_STARTED_WORKFLOWS, RESEARCH_WORKFLOW, RESEARCH_DRAFT_STATE, TIER_NOT_RECORDED],
    ),
    dataSource.query<{ workflow_type: string; runs: number }[]>(
      `select workflow_type, count(*)::int as runs from ${RUN_PROJECTION_TABLE} where not terminal group by 1 order by 1`,
    ),
  ]);
  return { byTier, byWorkflow: byWorkflow.map((row) => ({ workflowType: row.workflow_type, runs: row.runs })) };
}
