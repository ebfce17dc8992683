import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, ExecuteResearchLeg, ExecuteResearchLegs, GenerateResearchTitle, type MessageData, ResearchLegStarted, SynthesizeResearch } from '@openpaw/contracts';
import { type FailedBatchItem, type HandlerOutcome, isPermanentDatabaseError, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies, type Reply, replyTo } from '@openpaw/messaging';
import { ExecuteResearchLegHandler } from '../handlers/execute-research-leg/execute-research-leg.handler.js';
import { GenerateResearchTitleHandler } from '../handlers/generate-research-title/generate-research-title.handler.js';
import { SynthesizeResearchHandler } from '../handlers/synthesize-research/synthesize-research.handler.js';

export const RESEARCH_FLOW_SOURCE = '/openpaw/research';

/**
 * The research service's JetStream transport for the research flow (spec 05): legs and syntheses on
 * the `research` lane (their own durable consumer and concurrency), titles on the critical lane.
 * Thin: build the command, call the handler, publish its reply as an answer to the command.
 */
@Injectable()
export class ResearchFlowConsumer {
  constructor(
    private readonly legs: ExecuteResearchLegHandler,
    private readonly syntheses: SynthesizeResearchHandler,
    private readonly titles: GenerateResearchTitleHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  /** The one-item command (coordinators before ADR 0025, and their commands still in flight during a rolling upgrade). */
  @OnMessage(ExecuteResearchLeg)
  async onLeg(envelope: Envelope<MessageData<typeof ExecuteResearchLeg>>): Promise<HandlerOutcome> {
    await this.leg(envelope, envelope.id, envelope.data);
    return { kind: 'ack' };
  }

  /**
   * A round's legs as one command (ADR 0025): each item runs as its one-item command with the item id
   * as its command id (its kept reply, its announcement and its answer are that command's), side by
   * side under the provider limits each call takes. An item PostgreSQL refuses for good fails alone
   * (dead-lettered by the consumer) while the others stand; any other failure redelivers the batch,
   * whose answered items are then answered from their kept replies.
   */
  @OnMessage(ExecuteResearchLegs)
  async onLegs(envelope: Envelope<MessageData<typeof ExecuteResearchLegs>>): Promise<HandlerOutcome> {
    const { items, ...shared } = envelope.data;
    const settled = await Promise.allSettled(items.map(({ itemId, ...item }) => this.leg(envelope, itemId, { ...shared, ...item })));
    const failedItems: FailedBatchItem[] = [];
    for (const [i, outcome] of settled.entries()) {
      if (outcome.status === 'fulfilled') continue;
      if (!isPermanentDatabaseError(outcome.reason)) throw outcome.reason;
      failedItems.push({ itemId: (items[i] as { itemId: string }).itemId, reason: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason) });
    }
    return failedItems.length === 0 ? { kind: 'ack' } : { kind: 'ack', failedItems };
  }

  /** One leg, by its command id (the envelope's, or a batch item's): announced once it starts, then answered. */
  private async leg(command: Envelope<unknown>, commandId: string, d: MessageData<typeof ExecuteResearchLeg>): Promise<void> {
    const reply = await this.legs.execute({ commandId, data: d }, async (startedAt) => {
      const announcement = replyTo(commandId, ResearchLegStarted, { runId: d.runId, commandId, legIndex: d.legIndex, provider: d.provider, round: d.round, startedAt });
      await this.answer(command, d.runId, announcement);
    });
    await this.answer(command, d.runId, reply);
  }

  @OnMessage(SynthesizeResearch)
  async onSynthesis(envelope: Envelope<MessageData<typeof SynthesizeResearch>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.runId, await this.syntheses.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(GenerateResearchTitle)
  async onTitle(envelope: Envelope<MessageData<typeof GenerateResearchTitle>>): Promise<HandlerOutcome> {
    return this.answer(envelope, envelope.data.runId, await this.titles.execute({ commandId: envelope.id, data: envelope.data }));
  }

  private async answer(command: Envelope<unknown>, runId: string, reply: Reply): Promise<HandlerOutcome> {
    await publishReplies(this.publisher, command, [reply], { source: RESEARCH_FLOW_SOURCE, subject: runId });
    return { kind: 'ack' };
  }
}
