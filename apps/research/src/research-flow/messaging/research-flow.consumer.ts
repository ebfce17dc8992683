import { Inject, Injectable } from '@nestjs/common';
import {
  deterministicUuid,
  type Envelope,
  type EnvelopeMeta,
  ExecuteResearchLeg,
  GenerateResearchTitle,
  type MessageData,
  ResearchLegCompleted,
  ResearchLegFailed,
  ResearchLegStarted,
  ResearchSynthesisFailed,
  ResearchSynthesized,
  ResearchTitleGenerated,
  SynthesizeResearch,
} from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage } from '@openpaw/messaging';
import { ExecuteResearchLegHandler } from '../handlers/execute-research-leg/execute-research-leg.handler.js';
import { GenerateResearchTitleHandler } from '../handlers/generate-research-title/generate-research-title.handler.js';
import { SynthesizeResearchHandler } from '../handlers/synthesize-research/synthesize-research.handler.js';
import type { FlowReply } from '../ports.js';

export const RESEARCH_FLOW_SOURCE = '/openpaw/research';

/** Publishes a kept reply on its event's subject, with its own (deterministic) id. */
export async function publishFlowReply(publisher: MessagePublisher, reply: FlowReply, meta: Omit<EnvelopeMeta, 'id'>): Promise<void> {
  const withId = { ...meta, id: reply.id };
  switch (reply.kind) {
    case 'leg_completed':
      await publisher.publish(ResearchLegCompleted, reply.data, withId);
      return;
    case 'leg_failed':
      await publisher.publish(ResearchLegFailed, reply.data, withId);
      return;
    case 'synthesized':
      await publisher.publish(ResearchSynthesized, reply.data, withId);
      return;
    case 'synthesis_failed':
      await publisher.publish(ResearchSynthesisFailed, reply.data, withId);
      return;
    case 'title':
      await publisher.publish(ResearchTitleGenerated, reply.data, withId);
      return;
  }
}

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

  @OnMessage(ExecuteResearchLeg)
  async onLeg(envelope: Envelope<MessageData<typeof ExecuteResearchLeg>>): Promise<HandlerOutcome> {
    const d = envelope.data;
    const meta = this.metaOf(envelope, d.runId);
    const reply = await this.legs.execute({ commandId: envelope.id, data: d }, async (startedAt) => {
      await this.publisher.publish(
        ResearchLegStarted,
        { runId: d.runId, commandId: envelope.id, legIndex: d.legIndex, provider: d.provider, round: d.round, startedAt },
        { ...meta, id: deterministicUuid(envelope.id, ResearchLegStarted.subject) },
      );
    });
    await publishFlowReply(this.publisher, reply, meta);
    return { kind: 'ack' };
  }

  @OnMessage(SynthesizeResearch)
  async onSynthesis(envelope: Envelope<MessageData<typeof SynthesizeResearch>>): Promise<HandlerOutcome> {
    const reply = await this.syntheses.execute({ commandId: envelope.id, data: envelope.data });
    await publishFlowReply(this.publisher, reply, this.metaOf(envelope, envelope.data.runId));
    return { kind: 'ack' };
  }

  @OnMessage(GenerateResearchTitle)
  async onTitle(envelope: Envelope<MessageData<typeof GenerateResearchTitle>>): Promise<HandlerOutcome> {
    const reply = await this.titles.execute({ commandId: envelope.id, data: envelope.data });
    await publishFlowReply(this.publisher, reply, this.metaOf(envelope, envelope.data.runId));
    return { kind: 'ack' };
  }

  private metaOf(command: Envelope<unknown>, subject: string): Omit<EnvelopeMeta, 'id'> {
    return {
      source: RESEARCH_FLOW_SOURCE,
      correlationId: command.correlationid,
      causationId: command.id,
      subject,
      ...(command.userid === undefined ? {} : { userId: command.userid }),
    };
  }
}
