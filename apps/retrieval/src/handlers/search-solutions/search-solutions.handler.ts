import { Inject, Injectable } from '@nestjs/common';
import { type MessageData, RetrievalHit, RetrievalMiss, type SearchSolutions } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { HybridSearchResult } from '../../domain/hybrid-search.js';
import { RETRIEVAL_REPLIES } from '../../ports.js';
import type { RetrievalCommand } from '../retrieval-command.js';
import { RetrievalIndex } from '../../search/retrieval-index.js';
import { methodOf, queryFromSignature, traceEntriesOf } from '../../search/signature-mapping.js';

export type SearchSolutionsCommand = RetrievalCommand<typeof SearchSolutions>;

type Candidate = MessageData<typeof RetrievalHit>['candidate'];

/**
 * SearchSolutions: hybrid search for the signature at the command's threshold (exact image 1.0, exact
 * pHash 1.0, normalised text 0.99, near-duplicate pHash 0.95 confirmed by the texts, the same canonical maths
 * (0.97 × reading confidence ≥ the maths threshold), vector cosine ≥
 * threshold, fused keyword + vector ≥ threshold − 0.02). Answers RetrievalHit with the accepted
 * candidate, or RetrievalMiss with the best candidate considered (spec 01's near-miss rule needs it);
 * both carry the per-stage trace.
 *
 * The reply is kept before it is published: a redelivered command gets the same answer (same event id)
 * even when the index changed in between.
 */
@Injectable()
export class SearchSolutionsHandler {
  constructor(
    private readonly index: RetrievalIndex,
    @Inject(RETRIEVAL_REPLIES) private readonly replies: KeptReplyStore,
  ) {}

  execute(command: SearchSolutionsCommand): Promise<Reply> {
    // A search only reads: its look-up rides in the keep (`pure`), one round trip per search; a
    // redelivery searches again and is answered with the first kept answer.
    return answerOnceWith(this.replies, command.commandId, async () => {
      const { data } = command;
      const result = await this.index.search(queryFromSignature(data.signature), data.threshold, data.mathsSignatureThreshold, data.methodThresholds);
      const candidate = await this.candidateOf(result);
      const trace = traceEntriesOf(result.trace);
      return result.outcome === 'hit' && candidate !== null
        ? replyTo(command.commandId, RetrievalHit, { runId: data.runId, commandId: command.commandId, candidate, trace })
        : replyTo(command.commandId, RetrievalMiss, { runId: data.runId, commandId: command.commandId, topCandidate: candidate, trace });
    }, { pure: true });
  }

  /** The result's candidate in the contract's terms; its problem looked up when the stage that found it did not know it. */
  private async candidateOf(result: HybridSearchResult): Promise<Candidate | null> {
    if (result.candidate === null || result.stage === null) return null;
    const { assetVersionId } = result.candidate;
    const problemId = result.candidate.problemId ?? (await this.index.problemIdsOf([assetVersionId])).get(assetVersionId);
    // Every asset version is indexed with its problem (IndexDocument requires it); one without is not servable.
    if (problemId === undefined) return null;
    return {
      assetVersionId,
      problemId,
      confidence: Math.min(1, Math.max(0, result.confidence)),
      method: methodOf(result.stage, result.confidence),
      ...(result.relabel === undefined ? {} : { relabel: result.relabel.map((r) => ({ from: r.from, to: r.to })) }),
    };
  }
}
