import type { AssetVersionCreated, MessageData, ProblemRegistered } from '@openpaw/contracts';
import { firstTry } from '@openpaw/saga';
import { type DataAt, ingestedOf } from '../retrieve-or-generate.data.js';
import { ignore, replyTo, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from '../retrieve-or-generate.outcomes.js';

/** REGISTERING → INDEXING once both registry events are in, whichever came first. */
function afterRegistryEvent(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'registering'>, stepName: string): RogDecision {
  const { problemRegistered: problem, assetVersionCreated: version } = data;
  if (problem === null || version === null) return { outcome: 'stay', data, step: stepName };
  if (problem.problemId !== version.problemId) {
    return { outcome: 'refuse', reason: `ProblemRegistered (${problem.problemId}) and AssetVersionCreated (${version.problemId}) name different problems` };
  }
  const indexing: DataAt<'indexing'> = {
    ...ingestedOf(data),
    stage: 'indexing',
    solution: data.solution,
    problemRegistered: problem,
    assetVersionCreated: version,
    step: firstTry('index'),
  };
  return outcomes.enterStep(run, data, 'INDEXING', indexing, stepName);
}

export function problemRegistered(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'registering'>, e: MessageData<typeof ProblemRegistered>): RogDecision {
  if (!replyTo(run, data, e.commandId)) return ignore('stale ProblemRegistered');
  if (data.problemRegistered !== null) return ignore('ProblemRegistered already recorded');
  return afterRegistryEvent(outcomes, run, { ...data, problemRegistered: { problemId: e.problemId, created: e.created } }, 'problem_registered');
}

export function assetVersionCreated(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'registering'>, e: MessageData<typeof AssetVersionCreated>): RogDecision {
  if (!replyTo(run, data, e.commandId)) return ignore('stale AssetVersionCreated');
  if (e.assetType !== 'solution_html') return { outcome: 'refuse', reason: `asset version of type ${e.assetType}, not solution_html` };
  if (data.assetVersionCreated !== null) return ignore('AssetVersionCreated already recorded');
  return afterRegistryEvent(outcomes, run, { ...data, assetVersionCreated: { assetVersionId: e.assetVersionId, problemId: e.problemId, version: e.version } }, 'asset_version_created');
}
