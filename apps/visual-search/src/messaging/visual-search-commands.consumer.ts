import { Inject, Injectable } from '@nestjs/common';
import {
  CandidatesDiscovered,
  DiscoverCandidates,
  EdgeRefuted,
  EdgeVerified,
  type Envelope,
  ExpansionSelected,
  type MessageData,
  SelectNextExpansion,
  VerifyEdge,
  VisualStepFailed,
} from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, replyMetaFor } from '@openpaw/messaging';
import type { DiscoverCandidatesReply } from '../handlers/discover-candidates/discover-candidates.handler.js';
import type { SelectNextExpansionReply } from '../handlers/select-next-expansion/select-next-expansion.handler.js';
import type { VerifyEdgeReply } from '../handlers/verify-edge/verify-edge.handler.js';
import { VISUAL_SEARCH_HANDLERS, type VisualSearchHandlers } from '../composition.js';

export const VISUAL_SEARCH_SOURCE = '/openpaw/visual-search';

type VisualReply = VerifyEdgeReply | DiscoverCandidatesReply | SelectNextExpansionReply;

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
    await this.publish(envelope, await this.handlers.verifyEdge.execute({ commandId: envelope.id, data: envelope.data }));
    return { kind: 'ack' };
  }

  @OnMessage(DiscoverCandidates)
  async onDiscoverCandidates(envelope: Envelope<MessageData<typeof DiscoverCandidates>>): Promise<HandlerOutcome> {
    await this.publish(envelope, await this.handlers.discoverCandidates.execute({ commandId: envelope.id, data: envelope.data }));
    return { kind: 'ack' };
  }

  @OnMessage(SelectNextExpansion)
  async onSelectNextExpansion(envelope: Envelope<MessageData<typeof SelectNextExpansion>>): Promise<HandlerOutcome> {
    await this.publish(envelope, await this.handlers.selectNextExpansion.execute({ commandId: envelope.id, data: envelope.data }));
    return { kind: 'ack' };
  }

  private async publish(command: Envelope<{ readonly runId: string }>, reply: VisualReply): Promise<void> {
    const meta = replyMetaFor(command, { id: reply.id, source: VISUAL_SEARCH_SOURCE, subject: command.data.runId });
    switch (reply.kind) {
      case 'edge_verified':
        await this.publisher.publish(EdgeVerified, reply.data, meta);
        return;
      case 'edge_refuted':
        await this.publisher.publish(EdgeRefuted, reply.data, meta);
        return;
      case 'candidates_discovered':
        await this.publisher.publish(CandidatesDiscovered, reply.data, meta);
        return;
      case 'expansion_selected':
        await this.publisher.publish(ExpansionSelected, reply.data, meta);
        return;
      case 'step_failed':
        await this.publisher.publish(VisualStepFailed, reply.data, meta);
        return;
    }
  }
}
