import type { DocumentIndexed, MessageData } from '@openpaw/contracts';
import { ignore, replyTo, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from '../retrieve-or-generate.outcomes.js';

/** INDEXING → SUCCEEDED (outcome=new) once retrieval indexed this asset version. */
export function documentIndexed(outcomes: RetrieveOrGenerateOutcomes, run: Run, e: MessageData<typeof DocumentIndexed>): RogDecision {
  if (!replyTo(run, 'index', e.commandId)) return ignore('stale DocumentIndexed');
  if (e.assetVersionId !== run.data.assetVersionCreated?.assetVersionId) return { outcome: 'refuse', reason: 'DocumentIndexed for another asset version' };
  return outcomes.succeedNew(run, false, 'document_indexed');
}
