import { type Effect, firstTry, RUN_DEADLINE_TIMER, type StepLogEntry } from '@openpaw/saga';
import { RETRIEVE_OR_GENERATE } from '../../shared/workflow-types.js';
import { type DataAt, factsOf } from '../retrieve-or-generate.data.js';
import type { RetrieveOrGenerateOutcomes, RogDecision, Run } from '../retrieve-or-generate.outcomes.js';

/** INITIATED → INGESTING: the policy logged (step 0), the ingest command sent, the run's deadline set. */
export function started(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'created'>, now: Date): RogDecision {
  const { request, policy } = data;
  const ingesting: DataAt<'ingesting'> = { ...factsOf(data), startedAt: now.toISOString(), stage: 'ingesting', step: firstTry('ingest') };
  // Step 0: the policy governs everything after it, so it is logged first.
  const policyApplied: StepLogEntry = {
    step: 'policy_applied',
    payload: {
      policy,
      workflow_type: RETRIEVE_OR_GENERATE,
      subscription_tier: request.subscriptionTier,
      content_sensitivity: request.contentSensitivity,
    },
  };
  const entered = outcomes.enterStep(run, data, 'INGESTING', ingesting, 'ingest_requested', [policyApplied]);
  // The run's deadline (flow control): a step queued in a busy lane waits, up to here.
  const deadline: Effect = { type: 'setTimer', name: RUN_DEADLINE_TIMER, afterMs: policy.run_deadline_ms };
  return entered.outcome === 'transition' ? { ...entered, effects: [...(entered.effects ?? []), deadline] } : entered;
}
