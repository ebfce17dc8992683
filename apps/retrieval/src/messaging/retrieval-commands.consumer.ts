import { Inject, Injectable } from '@nestjs/common';
import {
  deterministicUuid,
  DocumentIndexed,
  type Envelope,
  IndexDocument,
  type MessageData,
  RetrievalHit,
  RetrievalHitV1,
  RetrievalMiss,
  RetrievalMissV1,
  retrievalMethodV1,
  SearchSolutions,
} from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, replyMetaFor } from '@openpaw/messaging';
import { IndexDocumentHandler } from '../handlers/index-document/index-document.handler.js';
import { SearchSolutionsHandler } from '../handlers/search-solutions/search-solutions.handler.js';
import type { RetrievalReply } from '../ports.js';

export const RETRIEVAL_SOURCE = '/openpaw/retrieval';

/**
 * The retrieval service's JetStream transport: builds each command from its (validated) envelope, calls
 * the handler and publishes its reply as the answer to the command (id derived from the command,
 * correlation = the command's run, causation = the command, same user). A handler that throws (the
 * database or Qdrant down) leaves the delivery to messaging's retry and dead-letter policy.
 */
@Injectable()
export class RetrievalCommandsConsumer {
  constructor(
    private readonly searchSolutions: SearchSolutionsHandler,
    private readonly indexDocument: IndexDocumentHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  @OnMessage(SearchSolutions)
  async onSearchSolutions(envelope: Envelope<MessageData<typeof SearchSolutions>>): Promise<HandlerOutcome> {
    const reply = await this.searchSolutions.execute({ commandId: envelope.id, data: envelope.data });
    await this.publish(envelope, reply);
    return { kind: 'ack' };
  }

  @OnMessage(IndexDocument)
  async onIndexDocument(envelope: Envelope<MessageData<typeof IndexDocument>>): Promise<HandlerOutcome> {
    const reply = await this.indexDocument.execute({ commandId: envelope.id, data: envelope.data });
    await this.publish(envelope, reply);
    return { kind: 'ack' };
  }

  private async publish(command: Envelope<{ readonly runId: string }>, reply: RetrievalReply): Promise<void> {
    const meta = replyMetaFor(command, { id: reply.id, source: RETRIEVAL_SOURCE, subject: command.data.runId });
    // v1 (deprecated) follows v2 for subscribers that have not moved, when v1 can name the candidate's method.
    const v1Meta = (subject: string) => ({ ...meta, id: deterministicUuid(command.id, subject) });
    switch (reply.type) {
      case 'RetrievalHit': {
        await this.publisher.publish(RetrievalHit, reply.data, meta);
        const v1 = retrievalMethodV1.safeParse(reply.data.candidate.method);
        if (v1.success) await this.publisher.publish(RetrievalHitV1, { ...reply.data, candidate: { ...reply.data.candidate, method: v1.data } }, v1Meta(RetrievalHitV1.subject));
        return;
      }
      case 'RetrievalMiss': {
        await this.publisher.publish(RetrievalMiss, reply.data, meta);
        const top = reply.data.topCandidate;
        const v1 = top === null ? null : retrievalMethodV1.safeParse(top.method);
        if (top === null || v1?.success === true) {
          const topCandidate = top === null || v1?.success !== true ? null : { ...top, method: v1.data };
          await this.publisher.publish(RetrievalMissV1, { ...reply.data, topCandidate }, v1Meta(RetrievalMissV1.subject));
        }
        return;
      }
      case 'DocumentIndexed':
        await this.publisher.publish(DocumentIndexed, reply.data, meta);
        return;
    }
  }
}
