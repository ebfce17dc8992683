import { Inject, Injectable } from '@nestjs/common';
import { DiscoverCandidates, type Envelope, type MessageData, SelectNextExpansion, TakeDownVisualPerson, VerifyEdge } from '@openpaw/contracts';
import { type HandlerOutcome, InFlightAborts, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies, type Reply, RunEndedError } from '@openpaw/messaging';
import { MessageLogContext } from '@openpaw/platform';
import { VISUAL_SEARCH_HANDLERS, type VisualSearchHandlers } from '../composition.js';
import { VISUAL_RUN_ABORTS } from './run-ended.subscription.js';
import { supersedeEarlierSteps } from './step-supersession.js';

export const VISUAL_SEARCH_SOURCE = '/openpaw/visual-search';

/**
 * The visual-search service's JetStream transport (lane `visual`): builds each command from its
 * validated envelope, calls the handler and publishes its reply as the answer to the command (id from
 * the handler, derived from the command; correlation = the run; causation = the command). A handler
 * that throws (NATS KV unreachable) leaves the delivery to messaging's retry and dead-letter policy;
 * a redelivered command gets the reply kept in run memory, so no second provider call. A step whose run
 * ended while it ran (`RunEnded`: a cancel, the runtime budget) is aborted and acknowledged unanswered:
 * nobody waits for it. So is a step superseded by a later one of its run (`supersedeEarlierSteps`: in every
 * replica, as the later step is sent).
 */
@Injectable()
export class VisualSearchCommandsConsumer {
  constructor(
    @Inject(VISUAL_SEARCH_HANDLERS) private readonly handlers: VisualSearchHandlers,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
    @Inject(VISUAL_RUN_ABORTS) private readonly aborts: InFlightAborts<number>,
    private readonly log: MessageLogContext,
  ) {}

  @OnMessage(VerifyEdge)
  async onVerifyEdge(envelope: Envelope<MessageData<typeof VerifyEdge>>): Promise<HandlerOutcome> {
    return this.answer(envelope, (signal) => this.handlers.verifyEdge.execute({ commandId: envelope.id, data: envelope.data, signal }));
  }

  @OnMessage(DiscoverCandidates)
  async onDiscoverCandidates(envelope: Envelope<MessageData<typeof DiscoverCandidates>>): Promise<HandlerOutcome> {
    return this.answer(envelope, (signal) => this.handlers.discoverCandidates.execute({ commandId: envelope.id, data: envelope.data, signal }));
  }

  @OnMessage(SelectNextExpansion)
  async onSelectNextExpansion(envelope: Envelope<MessageData<typeof SelectNextExpansion>>): Promise<HandlerOutcome> {
    return this.answer(envelope, (signal) => this.handlers.selectNextExpansion.execute({ commandId: envelope.id, data: envelope.data, signal }));
  }

  /**
   * An operator's takedown: not a run's step, so not tracked for a run's end. Without evidence stores
   * (a test wiring step handlers only) it is left to the retry and dead-letter policy, never dropped.
   */
  @OnMessage(TakeDownVisualPerson)
  async onTakeDownVisualPerson(envelope: Envelope<MessageData<typeof TakeDownVisualPerson>>): Promise<HandlerOutcome> {
    const takeDown = this.handlers.takeDown;
    if (takeDown === undefined) throw new Error('this visual-search has no evidence stores to take a person down from');
    const reply = await takeDown.execute({ commandId: envelope.id, data: envelope.data });
    this.log.info({ celebrityId: envelope.data.celebrityId, recognizer: reply.data.recognizer, requestedBy: envelope.data.requestedBy }, 'visual degrees takedown done');
    await publishReplies(this.publisher, envelope, [reply], { source: VISUAL_SEARCH_SOURCE });
    return { kind: 'ack' };
  }

  private async answer(command: Envelope<{ readonly runId: string; readonly step: number }>, handle: (signal: AbortSignal) => Promise<Reply>): Promise<HandlerOutcome> {
    const { runId, step } = command.data;
    // Heard on the core subscription too (`StepSupersessionSubscription`); here again for a replica that missed it.
    supersedeEarlierSteps(this.aborts, this.log, runId, step);
    let reply: Reply;
    try {
      reply = await this.aborts.track(runId, step, handle);
    } catch (error) {
      if (!(error instanceof RunEndedError)) throw error;
      this.log.info({ runId: error.runId, step, command: command.type, reason: error.reason }, 'step aborted: nobody waits for its answer');
      return { kind: 'ack' };
    }
    await publishReplies(this.publisher, command, [reply], { source: VISUAL_SEARCH_SOURCE, subject: command.data.runId });
    return { kind: 'ack' };
  }
}
