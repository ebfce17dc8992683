import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, ExecuteResearchLeg, GenerateResearchTitle, type MessageData, ResearchLegStarted, SynthesizeResearch } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies, type Reply, replyTo } from '@openpaw/messaging';
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

  @OnMessage(ExecuteResearchLeg)
  async onLeg(envelope: Envelope<MessageData<typeof ExecuteResearchLeg>>): Promise<HandlerOutcome> {
    const d = envelope.data;
    const reply = await this.legs.execute({ commandId: envelope.id, data: d }, async (startedAt) => {
      const announcement = replyTo(envelope.id, ResearchLegStarted, { runId: d.runId, commandId: envelope.id, legIndex: d.legIndex, provider: d.provider, round: d.round, startedAt });
      await this.answer(envelope, d.runId, announcement);
    });
    return this.answer(envelope, d.runId, reply);
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
