import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, IndexDocument, type MessageData, SearchSolutions, WithdrawProblem } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies } from '@openpaw/messaging';
import { IndexDocumentHandler } from '../handlers/index-document/index-document.handler.js';
import { SearchSolutionsHandler } from '../handlers/search-solutions/search-solutions.handler.js';
import { WithdrawProblemHandler } from '../handlers/withdraw-problem/withdraw-problem.handler.js';
import type { RetrievalSettings } from '../config.js';
import { RETRIEVAL_SETTINGS } from '../ports.js';
import { withDeprecatedVersions } from './deprecated-versions.js';

export const RETRIEVAL_SOURCE = '/openpaw/retrieval';

/**
 * The retrieval service's JetStream transport: builds each command from its (validated) envelope, calls
 * the handler and publishes its reply as the answer to the command (id derived from the command,
 * correlation = the command's run, causation = the command, same user), followed by its deprecated v1
 * while `OPENPAW_RETRIEVAL_REPLIES_V1` is on.
 * A handler that throws (the database or Qdrant down) leaves the delivery to messaging's retry and
 * dead-letter policy.
 */
@Injectable()
export class RetrievalCommandsConsumer {
  constructor(
    private readonly searchSolutions: SearchSolutionsHandler,
    private readonly indexDocument: IndexDocumentHandler,
    private readonly withdrawProblem: WithdrawProblemHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
    @Inject(RETRIEVAL_SETTINGS) private readonly settings: Pick<RetrievalSettings, 'publishRepliesV1'>,
  ) {}

  @OnMessage(SearchSolutions)
  async onSearchSolutions(envelope: Envelope<MessageData<typeof SearchSolutions>>): Promise<HandlerOutcome> {
    const reply = await this.searchSolutions.execute({ commandId: envelope.id, data: envelope.data });
    const replies = this.settings.publishRepliesV1 ? withDeprecatedVersions(envelope.id, reply) : [reply];
    await publishReplies(this.publisher, envelope, replies, { source: RETRIEVAL_SOURCE, subject: envelope.data.runId });
    return { kind: 'ack' };
  }

  @OnMessage(IndexDocument)
  async onIndexDocument(envelope: Envelope<MessageData<typeof IndexDocument>>): Promise<HandlerOutcome> {
    const reply = await this.indexDocument.execute({ commandId: envelope.id, data: envelope.data });
    await publishReplies(this.publisher, envelope, [reply], { source: RETRIEVAL_SOURCE, subject: envelope.data.runId });
    return { kind: 'ack' };
  }

  @OnMessage(WithdrawProblem)
  async onWithdrawProblem(envelope: Envelope<MessageData<typeof WithdrawProblem>>): Promise<HandlerOutcome> {
    const reply = await this.withdrawProblem.execute({ commandId: envelope.id, data: envelope.data });
    await publishReplies(this.publisher, envelope, [reply], { source: RETRIEVAL_SOURCE, subject: envelope.data.runId });
    return { kind: 'ack' };
  }
}
