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
 * types and states are matched as two lists, which the planner reads through `workflow_runs_type_state`
 * with its per-value statistics (a join against the pairs made it scan every run); terminal runs
 * (almost all rows) are never read. The lists' cross product can name a pair that is not watched
 * (a state one workflow has and another names alike): such groups are dropped here.
 */
export async function idleRuns(dataSource: DataSource, states: readonly WorkflowState[]): Promise<IdleRunsReading[]> {
  if (states.length === 0) return [];
  const watched = new Set(states.map((s) => `${s.workflowType}\u0000${s.state}`));
  const rows = await dataSource.query<{ type: string; state: string; runs: number; oldest_idle_seconds: number }[]>(
    `select type, state, count(*)::int as runs, extract(epoch from now() - min(updated_at))::float8 as oldest_idle_seconds
       from coordinator.workflow_runs
      where type = any($1::text[]) and state = any($2::text[])
      group by type, state
      order by type, state`,
    [[...new Set(states.map((s) => s.workflowType))], [...new Set(states.map((s) => s.state))]],
  );
  return rows
    .filter((row) => watched.has(`${row.type}\u0000${row.state}`))
    .map((row) => ({ workflowType: row.type, state: row.state, runs: row.runs, oldestIdleSeconds: Math.max(0, row.oldest_idle_seconds) }));
}
