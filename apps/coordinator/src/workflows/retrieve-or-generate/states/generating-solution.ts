import { solveErrorCode } from '@openpaw/contracts';
import { type ChildInput, firstTry, type StepLogEntry } from '@openpaw/saga';
import { roundUsd } from '../../shared/run-status.js';
import { solveViewSchema } from '../../solve/solve-workflow.definition.js';
import { NEAR_MISS_MIN_CONFIDENCE } from '../retrieval-bars.js';
import { type DataAt, ingestedOf, type RetrieveOrGenerateErrorCode } from '../retrieve-or-generate.data.js';
import { ignore, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from '../retrieve-or-generate.outcomes.js';

/** The solve child run ended: register its solution, or serve a near-miss, or fail. */
export function solveFinished(outcomes: RetrieveOrGenerateOutcomes, run: Run, generating: DataAt<'generating'>, input: ChildInput): RogDecision {
  const { enterStep, fail } = outcomes;
  if (input.childRunId !== generating.solveRunId) return ignore('stale child result');
  const view = solveViewSchema.safeParse(input.view);
  const data: DataAt<'generating'> = { ...generating, costUsd: generating.costUsd + (view.success ? view.data.cost_usd : 0) };
  if (input.state === 'SUCCEEDED') {
    const solved = view.success ? view.data : undefined;
    if (solved?.storageKey === undefined || solved.contentSha256 === undefined || solved.provenance === undefined) {
      return fail(run, data, 'invalid_solve_result', 'solve_workflow succeeded without storageKey, contentSha256 and provenance', 'solve_failed');
    }
    const registering: DataAt<'registering'> = {
      ...ingestedOf(data),
      stage: 'registering',
      solution: { storageKey: solved.storageKey, contentSha256: solved.contentSha256, provenance: solved.provenance },
      step: firstTry('register'),
      problemRegistered: null,
      assetVersionCreated: null,
    };
    return enterStep(run, data, 'REGISTERING', registering, 'solution_generated');
  }
  // FAILED (retries exhausted, not retryable, or cost cap) or CANCELLED.
  const reported = solveErrorCode.safeParse(view.success ? view.data.error_code : undefined);
  const errorCode: RetrieveOrGenerateErrorCode = input.state === 'CANCELLED' ? 'solve_cancelled' : reported.success ? reported.data : 'solve_failed';
  const capExceeded = errorCode === 'cost_cap_exceeded' || data.costUsd > data.policy.cost_cap_usd;
  // Spec: a near-miss only "after all retries AND cost cap not exceeded": not after a non-retryable
  // failure (the model said it cannot solve it) and not after the solve run was cancelled.
  const retriesExhausted = input.state === 'FAILED' && view.success && view.data.retries_exhausted === true;
  const near = data.topCandidate;
  const solveFailed: StepLogEntry = {
    step: 'solve_failed',
    payload: { error_code: errorCode, cost_usd: roundUsd(data.costUsd), cost_cap_exceeded: capExceeded, retries_exhausted: retriesExhausted },
  };
  if (retriesExhausted && !capExceeded && near !== null && near.confidence > NEAR_MISS_MIN_CONFIDENCE) {
    // Served as outcome=hit: the user gets an existing, retrieved solution (nothing new was made, so no
    // video and no indexing), flagged as approximate.
    const succeeded: DataAt<'succeeded'> = {
      ...ingestedOf(data),
      stage: 'succeeded',
      result: { outcome: 'hit', assetVersionId: near.assetVersionId, isApproximate: true, videoPending: false, indexDeferred: false },
    };
    return {
      outcome: 'transition',
      to: 'SUCCEEDED',
      data: succeeded,
      step: 'near_miss_served',
      logs: [solveFailed, { step: 'near_miss', payload: { asset_version_id: near.assetVersionId, confidence: near.confidence, method: near.method } }],
    };
  }
  return fail(run, data, errorCode, `solve_workflow ${input.state.toLowerCase()}${capExceeded ? ' (cost cap exceeded)' : ''}`, 'solve_failed');
}
