import type { DocumentIndexed, MessageData } from '@openpaw/contracts';
import type { DataAt } from '../retrieve-or-generate.data.js';
import { ignore, replyTo, type RetrieveOrGenerateOutcomes, type RogDecision, type Run } from '../retrieve-or-generate.outcomes.js';

/** INDEXING → SUCCEEDED (outcome=new) once retrieval indexed this asset version. */
export function documentIndexed(outcomes: RetrieveOrGenerateOutcomes, run: Run, data: DataAt<'indexing'>, e: MessageData<typeof DocumentIndexed>): RogDecision {
  if (!replyTo(run, data, e.commandId)) return ignore('stale DocumentIndexed');
  if (e.assetVersionId !== data.assetVersionCreated.assetVersionId) return { outcome: 'refuse', reason: 'DocumentIndexed for another asset version' };
  return outcomes.succeedNew(run, data, false, 'document_indexed');
}
