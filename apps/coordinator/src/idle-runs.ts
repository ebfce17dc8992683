import type { IdleRunsReading } from '@openpaw/platform';
import type { AnySagaDefinition } from '@openpaw/saga';
import type { DataSource } from 'typeorm';

/**
 * The non-terminal states in which a run waits for a person (a confirmation, a review, the start of a
 * drafted research), by workflow type: hours there are normal, so they are not "stuck". The saga
 * definitions do not say which inputs a state answers, so this is declared here; idle-runs.spec.ts
 * checks every entry is a non-terminal state of its workflow and every `awaiting` state is listed.
 */
export const HUMAN_WAIT_STATES: Readonly<Record<string, readonly string[]>> = {
  retrieve_or_generate: ['AWAITING_READING_CONFIRMATION'],
  paper_search: ['AWAITING_STRATEGY_CONFIRMATION', 'AWAITING_RESULT_REVIEW'],
  research: ['draft', 'awaiting_confirmation'],
};

export interface WorkflowState {
  readonly workflowType: string;
  readonly state: string;
}

/** Every (workflow type, state) in which a run waits for machine work: not terminal, not waiting for a person. */
export function machineWorkStates(definitions: readonly AnySagaDefinition[]): WorkflowState[] {
  return definitions.flatMap((definition) => {
    const human = new Set(HUMAN_WAIT_STATES[definition.type] ?? []);
    const terminal = new Set<string>(definition.terminal);
    return definition.states.filter((state) => !terminal.has(state) && !human.has(state)).map((state) => ({ workflowType: definition.type, state }));
  });
}

/**
 * Runs waiting for machine work, per workflow type and state, and how long since the least recently
 * stepped one took a step (`updated_at` moves with every applied step). Cheap on a large table: the
 * (type, state) pairs are looked up through `workflow_runs_type_state`, and terminal runs (almost all
 * rows) are never read.
 */
export async function idleRuns(dataSource: DataSource, states: readonly WorkflowState[]): Promise<IdleRunsReading[]> {
  if (states.length === 0) return [];
  const rows = await dataSource.query<{ type: string; state: string; runs: number; oldest_idle_seconds: number }[]>(
    `select r.type, r.state, count(*)::int as runs, extract(epoch from now() - min(r.updated_at))::float8 as oldest_idle_seconds
       from unnest($1::text[], $2::text[]) as w(type, state)
       join coordinator.workflow_runs r on r.type = w.type and r.state = w.state
      group by r.type, r.state
      order by r.type, r.state`,
    [states.map((s) => s.workflowType), states.map((s) => s.state)],
  );
  return rows.map((row) => ({ workflowType: row.type, state: row.state, runs: row.runs, oldestIdleSeconds: Math.max(0, row.oldest_idle_seconds) }));
}
