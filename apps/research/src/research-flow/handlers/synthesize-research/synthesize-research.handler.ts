import { Inject, Injectable } from '@nestjs/common';
import { type MessageData, RESEARCH_LIMITS, ResearchSynthesisFailed, ResearchSynthesized, type SynthesizeResearch } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { Clock } from '@openpaw/providers';
import { RESEARCH_CLOCK } from '../../../ports.js';
import type { LegCancellations } from '../../cancellation/leg-cancellations.js';
import { FLOW_CANCELLATIONS, FLOW_KEYS, FLOW_PROVIDERS, FLOW_REPLIES, type KeyOpener } from '../../ports.js';
import type { ResearchProviders } from '../../research-providers.js';
import { abortedLeg, legFailureOf } from '../../researchers/llm-researcher.js';
import { LegFailure } from '../../researchers/researcher.js';
import { ReportSharer } from '../../share/report-sharer.js';
import { attributionsOf, sourcesOf, type SynthesisResult } from '../../synthesis/synthesizer.js';
import { cutTo } from '../../text/sentences.js';
import { capped, type FlowCommand, openKey } from '../research-command.js';

type Command = FlowCommand<MessageData<typeof SynthesizeResearch>>;

/**
 * Phase 4: the synthesis (or, when the skip rule holds, none), with source attribution counted per
 * source, then the post-synthesis actions: the report as shareable HTML with a signed URL.
 * Idempotent like a leg: the reply is kept by command id.
 */
@Injectable()
export class SynthesizeResearchHandler {
  constructor(
    @Inject(FLOW_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(FLOW_KEYS) private readonly keys: KeyOpener,
    @Inject(FLOW_PROVIDERS) private readonly providers: ResearchProviders,
    @Inject(FLOW_CANCELLATIONS) private readonly cancellations: LegCancellations,
    private readonly sharer: ReportSharer,
    @Inject(RESEARCH_CLOCK) private readonly clock: Clock,
  ) {}

  execute(command: Command): Promise<Reply> {
    return answerOnceWith(this.replies, command.commandId, () => this.answer(command));
  }

  private async answer(command: Command): Promise<Reply> {
    const d = command.data;
    const failed = (failure: LegFailure): Reply => replyTo(command.commandId, ResearchSynthesisFailed, { runId: d.runId, commandId: command.commandId, round: d.round, reason: failure.reason, detail: failure.message.slice(0, 2_000), costUsd: failure.costUsd });
    if (this.cancellations.isOver(d.runId, 'synthesis', d.round)) return failed(new LegFailure('cancelled', 'the research ended before the synthesis started'));

    let synthesis: MessageData<typeof ResearchSynthesized>['synthesis'] = null;
    if (!d.skipSynthesis) {
      let result: SynthesisResult;
      try {
        const apiKey = openKey(this.keys, d.userId, d.synthesisLlm, d.key);
        result = await this.cancellations.track(d.runId, 'synthesis', d.round, async (cancel) => {
          const signal = capped(cancel, d.capMs);
          try {
            const answer = await this.providers.synthesizerFor(d.synthesisLlm).synthesize({
              runId: d.runId,
              userId: d.userId,
              prompt: d.prompt,
              reports: d.reports,
              externalReports: d.externalReports,
              synthesisLlm: d.synthesisLlm,
              apiKey,
              costCapUsd: d.costCapUsd,
              signal,
            });
            if (signal.aborted) throw abortedLeg(signal, answer.costUsd);
            return answer;
          } catch (error) {
            throw legFailureOf(error, signal);
          }
        });
      } catch (error) {
        if (!(error instanceof LegFailure)) throw error;
        return failed(error);
      }
      const cut = cutTo(result.content, RESEARCH_LIMITS.reportChars);
      const content = cut.text;
      synthesis = {
        content,
        truncated: cut.truncated || result.cutShort === true,
        model: result.model,
        local: result.local,
        attributions: attributionsOf(content, sourcesOf(d.reports, d.externalReports)),
        costUsd: result.costUsd,
      };
    }

    const shared = await this.sharer.share({
      researchId: d.runId,
      title: d.title,
      prompt: d.prompt,
      synthesis: synthesis === null ? null : { content: synthesis.content, model: synthesis.model, truncated: synthesis.truncated === true },
      reports: d.reports,
      externalReports: d.externalReports,
      generatedAt: new Date(this.clock.now()).toISOString(),
    });
    return replyTo(command.commandId, ResearchSynthesized, { runId: d.runId, commandId: command.commandId, round: d.round, synthesis, share: shared.share, shareError: shared.shareError });
  }
}
