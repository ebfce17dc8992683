import type { AssetVersionCreated, MessageData, ProblemRegistered } from '@openpaw/contracts';
import type { RetrieveOrGenerateData } from '../retrieve-or-generate.data.js';
import { ignore, replyTo, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from '../retrieve-or-generate.outcomes.js';

type D = RetrieveOrGenerateData;

/** REGISTERING → INDEXING once both registry events are in, whichever came first. */
function afterRegistryEvent(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: D, stepName: string): RogDecision {
  const problem = data.problemRegistered;
  const version = data.assetVersionCreated;
  if (problem === null || version === null) return { outcome: 'stay', data, step: stepName };
  if (problem.problemId !== version.problemId) {
    return { outcome: 'refuse', reason: `ProblemRegistered (${problem.problemId}) and AssetVersionCreated (${version.problemId}) name different problems` };
  }
  return outcomes.enterStep(run, data, 'INDEXING', 'index', stepName);
}

export function problemRegistered(outcomes: RetrieveOrGenerateOutcomes, run: Run, e: MessageData<typeof ProblemRegistered>): RogDecision {
  if (!replyTo(run, 'register', e.commandId)) return ignore('stale ProblemRegistered');
  if (run.data.problemRegistered !== null) return ignore('ProblemRegistered already recorded');
  return afterRegistryEvent(outcomes, run, { ...run.data, problemRegistered: { problemId: e.problemId, created: e.created } }, 'problem_registered');
}

export function assetVersionCreated(outcomes: RetrieveOrGenerateOutcomes, run: Run, e: MessageData<typeof AssetVersionCreated>): RogDecision {
  if (!replyTo(run, 'register', e.commandId)) return ignore('stale AssetVersionCreated');
  if (e.assetType !== 'solution_html') return { outcome: 'refuse', reason: `asset version of type ${e.assetType}, not solution_html` };
  if (run.data.assetVersionCreated !== null) return ignore('AssetVersionCreated already recorded');
  return afterRegistryEvent(outcomes, run, { ...run.data, assetVersionCreated: { assetVersionId: e.assetVersionId, problemId: e.problemId, version: e.version } }, 'asset_version_created');
}
