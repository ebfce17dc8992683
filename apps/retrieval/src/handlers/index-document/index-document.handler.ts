import { Inject, Injectable } from '@nestjs/common';
import { DocumentIndexed, type IndexDocument } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import { RETRIEVAL_REPLIES } from '../../ports.js';
import type { RetrievalCommand } from '../retrieval-command.js';
import { RetrievalIndex } from '../../search/retrieval-index.js';
import { documentFromIndexCommand } from '../../search/signature-mapping.js';

export type IndexDocumentCommand = RetrievalCommand<typeof IndexDocument>;

/**
 * IndexDocument: the asset version's signature goes into every index (catalogue with its exact keys and
 * full-text vector, the pHash index of its version, the vector index), then DocumentIndexed: from then on
 * a search finds it. Idempotent per asset version (every step is an upsert keyed by it); a redelivered
 * command gets the kept reply without indexing again, and one that follows a crash mid-way repairs the
 * indexes by running every step again.
 */
@Injectable()
export class IndexDocumentHandler {
  constructor(
    private readonly index: RetrievalIndex,
    @Inject(RETRIEVAL_REPLIES) private readonly replies: KeptReplyStore,
  ) {}

  execute(command: IndexDocumentCommand): Promise<Reply> {
    return answerOnceWith(this.replies, command.commandId, async () => {
      const { data } = command;
      await this.index.index(documentFromIndexCommand(data));
      return replyTo(command.commandId, DocumentIndexed, { runId: data.runId, commandId: command.commandId, assetVersionId: data.assetVersionId, problemId: data.problemId });
    });
  }
}
