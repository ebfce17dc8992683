import { Inject, Injectable } from '@nestjs/common';
import { DiscoverCandidates, type Envelope, type MessageData, SelectNextExpansion, VerifyEdge } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies, type Reply } from '@openpaw/messaging';
import { VISUAL_SEARCH_HANDLERS, type VisualSearchHandlers } from '../composition.js';

export const VISUAL_SEARCH_SOURCE = '/openpaw/visual-search';

/**
 * The visual-search service's JetStream transport (lane `visual`): builds each command from its
 * validated envelope, calls the handler and publishes its reply as the answer to the command (id from
 * the handler, derived from the command; correlation = the run; causation = the command). A handler
 * that throws (NATS KV unreachable) leaves the delivery to messaging's retry and dead-letter policy;
 * a redelivered command gets the reply kept in run memory, so no second provider call.
 */
@Injectable()
export class VisualSearchCommandsConsumer {
  constructor(
    @Inject(VISUAL_SEARCH_HANDLERS) private readonly handlers: VisualSearchHandlers,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  @OnMessage(VerifyEdge)
  async onVerifyEdge(envelope: Envelope<MessageData<typeof VerifyEdge>>): Promise<HandlerOutcome> {
    return this.answer(envelope, await this.handlers.verifyEdge.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(DiscoverCandidates)
  async onDiscoverCandidates(envelope: Envelope<MessageData<typeof DiscoverCandidates>>): Promise<HandlerOutcome> {
    return this.answer(envelope, await this.handlers.discoverCandidates.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(SelectNextExpansion)
  async onSelectNextExpansion(envelope: Envelope<MessageData<typeof SelectNextExpansion>>): Promise<HandlerOutcome> {
    return this.answer(envelope, await this.handlers.selectNextExpansion.execute({ commandId: envelope.id, data: envelope.data }));
  }

  private async answer(command: Envelope<{ readonly runId: string }>, reply: Reply): Promise<HandlerOutcome> {
    await publishReplies(this.publisher, command, [reply], { source: VISUAL_SEARCH_SOURCE, subject: command.data.runId });
    return { kind: 'ack' };
  }
}
