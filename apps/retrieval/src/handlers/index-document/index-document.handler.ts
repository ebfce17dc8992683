import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, DocumentIndexed, type IndexDocument, type MessageData } from '@openpaw/contracts';
import { RETRIEVAL_REPLIES, type RetrievalReply, type RetrievalReplyStore } from '../../ports.js';
import { RetrievalIndex } from '../../search/retrieval-index.js';
import { documentFromIndexCommand } from '../../search/signature-mapping.js';

export interface IndexDocumentCommand {
  /** The command's envelope id: the reply's id derives from it and the saga matches the reply by it. */
  readonly commandId: string;
  readonly data: MessageData<typeof IndexDocument>;
}

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
    @Inject(RETRIEVAL_REPLIES) private readonly replies: RetrievalReplyStore,
  ) {}

  async execute(command: IndexDocumentCommand): Promise<RetrievalReply> {
    const kept = await this.replies.find(command.commandId);
    if (kept !== undefined) return kept;
    const { data } = command;
    await this.index.index(documentFromIndexCommand(data));
    return this.replies.save(command.commandId, {
      type: 'DocumentIndexed',
      id: deterministicUuid(command.commandId, DocumentIndexed.subject),
      data: { runId: data.runId, commandId: command.commandId, assetVersionId: data.assetVersionId, problemId: data.problemId },
    });
  }
}
