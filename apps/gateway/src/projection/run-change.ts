import type { MessageData, RunStateChanged, RunStateChangedV2 } from '@openpaw/contracts';

/** A run's state changes of one coordinator transaction, oldest first, with the view after the last (`RunStateChanged` v2). */
export type RunChange = MessageData<typeof RunStateChangedV2>;
/** One state change with the run's view (`RunStateChanged` v1, and what the run event bus carries). */
export type RunTransitionEvent = MessageData<typeof RunStateChanged>;

/**
 * Either version as a v2: a v1 (published during ADR 0024's deprecation window, or by a coordinator
 * older than v2 during a rolling upgrade) is a change of one transition.
 */
export function asRunChange(event: RunChange | RunTransitionEvent): RunChange {
  if ('changes' in event) return event;
  const { runId, workflowType, userId, parentRunId, view, ...transition } = event;
  return { runId, workflowType, userId, parentRunId, view, ...transition, changes: [transition] };
}

/**
 * Each transition of a change as a v1-shaped event, oldest first. The view is the one the change
 * carries (after its last transition): the coordinator applied the transitions in one transaction
 * and published the view once (ADR 0024).
 */
export function transitionsOf(change: RunChange): RunTransitionEvent[] {
  const { runId, workflowType, userId, parentRunId, view } = change;
  return change.changes.map((transition) => ({ runId, workflowType, userId, parentRunId, view, ...transition }));
}
