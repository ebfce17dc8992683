import type { MessageData, RetrievalHit, RetrievalMiss } from '@openpaw/contracts';
import { type ClaimInput, firstTry, type StepLogEntry } from '@openpaw/saga';
import { earlierResultSchema } from '../problem-key.js';
import { acceptanceBar } from '../retrieval-bars.js';
import type { RetrieveOrGenerateCommands } from '../retrieve-or-generate.commands.js';
import { type Candidate, type DataAt, ingestedOf } from '../retrieve-or-generate.data.js';
import { ignore, leaving, replyTo, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from '../retrieve-or-generate.outcomes.js';

/**
 * Spec 01, idempotency: the key claimed → retrieve; held by an earlier run that SUCCEEDED → its
 * result, no re-run; held by one still going → wait for it (told again when it ends); the earlier
 * run FAILED or was CANCELLED while this one waited → claim again (the engine hands the key over).
 */
export function problemKeyClaim(commands: RetrieveOrGenerateCommands, run: Run, data: DataAt<'claiming'>, claim: ClaimInput): RogDecision {
  if (claim.key !== data.problemKey) return ignore('claim of another key');
  const claiming: DataAt<'claiming'> = { ...ingestedOf(data), stage: 'claiming', problemKey: data.problemKey };
  const retrieve = (stepName: string, logs: readonly StepLogEntry[] = []): RogDecision => {
    const searching: DataAt<'searching'> = { ...ingestedOf(data), stage: 'searching', step: firstTry('retrieve') };
    return { outcome: 'stay', data: searching, step: stepName, logs, effects: [commands.commandFor(run, searching)] };
  };
  if (claim.outcome === 'claimed') return retrieve('problem_key_claimed');
  const { holder } = claim;
  const earlier = { run_id: holder.runId, state: holder.state, attempt_no: holder.attemptNo };
  if (!holder.terminal) return { outcome: 'stay', data: { ...claiming, waitingForRunId: holder.runId }, step: 'waiting_for_earlier_run', logs: [{ step: 'problem_key_held', payload: earlier }] };
  if (holder.state !== 'SUCCEEDED') {
    return { outcome: 'stay', data: claiming, step: 'earlier_run_released_key', logs: [{ step: 'problem_key_held', payload: earlier }], effects: [{ type: 'claimKey', key: claim.key }] };
  }
  const result = earlierResultSchema.safeParse(holder.view);
  if (!result.success) return retrieve('earlier_run_unreadable', [{ step: 'problem_key_held', payload: { ...earlier, problem: result.error.message.slice(0, 500) } }]);
  const { outcome, output } = result.data;
  const succeeded: DataAt<'succeeded'> = {
    ...ingestedOf(data),
    stage: 'succeeded',
    cachedFrom: holder.runId,
    result: { outcome, assetVersionId: output.asset_version_id, isApproximate: output.is_approximate ?? false, videoPending: output.video_pending ?? false, indexDeferred: false },
  };
  return { outcome: 'transition', to: 'SUCCEEDED', data: succeeded, step: 'answered_from_earlier_run', logs: [{ step: 'problem_key_held', payload: earlier }] };
}

/** RETRIEVING → SUCCEEDED (a hit at or above the policy's bar), else → GENERATING_SOLUTION. */
export function retrievalHit(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'searching'>, e: MessageData<typeof RetrievalHit>): RogDecision {
  if (!replyTo(run, data, e.commandId)) return ignore('stale RetrievalHit');
  const candidate = e.candidate;
  const bar = acceptanceBar(candidate.method, data.policy);
  if (candidate.confidence < bar) {
    // Below the policy's bar (retrieval may run with another threshold): a miss, with this as its top candidate.
    return outcomes.generate(run, data, servableAsIs(candidate), 'retrieval_hit_below_threshold', [
      { step: 'hit_below_threshold', payload: { confidence: candidate.confidence, threshold: bar, method: candidate.method } },
    ]);
  }
  if (candidate.relabel !== undefined && candidate.relabel.length > 0) {
    // The stored solution is written in the stored names: rendered again in the asker's (issue 24).
    const renamedHit = { assetVersionId: candidate.assetVersionId, relabel: candidate.relabel };
    return outcomes.generate(run, { ...data, renamedHit }, null, 'retrieval_hit_renamed', [
      { step: 'renamed_maths_hit', payload: { asset_version_id: candidate.assetVersionId, confidence: candidate.confidence, relabel: candidate.relabel } },
    ]);
  }
  const succeeded: DataAt<'succeeded'> = {
    ...ingestedOf(data),
    stage: 'succeeded',
    result: { outcome: 'hit', assetVersionId: candidate.assetVersionId, isApproximate: false, videoPending: false, indexDeferred: false },
  };
  return { outcome: 'transition', to: 'SUCCEEDED', data: succeeded, step: 'retrieval_hit', effects: leaving(data) };
}

/** A candidate the near-miss rule may serve as it is: not one in other names (its solution speaks of other unknowns). */
function servableAsIs(candidate: Candidate | null): Candidate | null {
  return candidate?.relabel !== undefined && candidate.relabel.length > 0 ? null : candidate;
}

/** RETRIEVING → GENERATING_SOLUTION, keeping the top candidate for the near-miss rule. */
export function retrievalMiss(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'searching'>, e: MessageData<typeof RetrievalMiss>): RogDecision {
  return replyTo(run, data, e.commandId) ? outcomes.generate(run, data, servableAsIs(e.topCandidate), 'retrieval_miss') : ignore('stale RetrievalMiss');
}
