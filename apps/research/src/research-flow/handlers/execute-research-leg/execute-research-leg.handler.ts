import { Inject, Injectable } from '@nestjs/common';
import { type ExecuteResearchLeg, type MessageData, RESEARCH_LIMITS, ResearchLegCompleted, ResearchLegFailed } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { Clock } from '@openpaw/providers';
import { RESEARCH_CLOCK } from '../../../ports.js';
import type { LegCancellations } from '../../cancellation/leg-cancellations.js';
import type { BackgroundCalls } from '../../background-calls.js';
import { FLOW_BACKGROUND_CALLS, FLOW_CANCELLATIONS, FLOW_KEYS, FLOW_PROVIDERS, FLOW_REPLIES, type KeyOpener } from '../../ports.js';
import type { ResearchProviders } from '../../research-providers.js';
import { abortedLeg, legFailureOf } from '../../researchers/llm-researcher.js';
import { LegFailure } from '../../researchers/researcher.js';
import { cutTo } from '../../text/sentences.js';
import { capped, type FlowCommand, openKey } from '../research-command.js';

type Command = FlowCommand<MessageData<typeof ExecuteResearchLeg>>;

/**
 * One leg (spec's `llm.call` → process-llm-call): the provider's researcher under the leg's hard cap
 * and the run's cancellation, with the user's own key. Idempotent: the reply is kept by command id
 * before it is published, so a redelivery (a crash after the call, a re-send) answers from it and
 * never calls the provider again; a redelivery before the reply was kept (its pod replaced mid-call)
 * resumes the provider's background response kept under the command id, and is billed once.
 * `started` runs once the leg really begins (per-leg `processing`).
 */
@Injectable()
export class ExecuteResearchLegHandler {
  constructor(
    @Inject(FLOW_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(FLOW_KEYS) private readonly keys: KeyOpener,
    @Inject(FLOW_PROVIDERS) private readonly providers: ResearchProviders,
    @Inject(FLOW_CANCELLATIONS) private readonly cancellations: LegCancellations,
    @Inject(RESEARCH_CLOCK) private readonly clock: Clock,
    @Inject(FLOW_BACKGROUND_CALLS) private readonly backgroundCalls: BackgroundCalls,
  ) {}

  execute(command: Command, started: (startedAt: string) => Promise<void>): Promise<Reply> {
    return answerOnceWith(this.replies, command.commandId, () => this.answer(command, started));
  }

  private async answer(command: Command, started: (startedAt: string) => Promise<void>): Promise<Reply> {
    const d = command.data;
    const base = { runId: d.runId, commandId: command.commandId, legIndex: d.legIndex, provider: d.provider, round: d.round };
    const failed = (failure: LegFailure): Reply => replyTo(command.commandId, ResearchLegFailed, { ...base, reason: failure.reason, detail: failure.message.slice(0, 2_000), costUsd: failure.costUsd });
    if (this.cancellations.isOver(d.runId, 'leg', d.round)) return failed(new LegFailure('cancelled', 'the research ended before this leg started'));

    let apiKey: string | null;
    try {
      apiKey = openKey(this.keys, d.userId, d.provider, d.key);
    } catch (error) {
      if (!(error instanceof LegFailure)) throw error;
      return failed(error);
    }

    const startedAt = this.clock.now();
    // Announced while the provider works (not before: a round trip less per leg); settled before the reply goes out.
    const announced = started(new Date(startedAt).toISOString()).catch(() => undefined);
    const researcher = this.providers.researcherFor(d.provider);
    const outcome = await this.cancellations.track(d.runId, 'leg', d.round, async (cancel) => {
      const signal = capped(cancel, d.capMs);
      try {
        // The command id is the call's idempotency key: a redelivery of this leg resumes its provider call.
        const backgroundCalls = this.backgroundCalls.for(command.commandId);
        const report = await researcher.research({ runId: d.runId, userId: d.userId, provider: d.provider, prompt: d.prompt, externalReports: d.externalReports, apiKey, costCapUsd: d.costCapUsd, signal, backgroundCalls });
        // A local leg answers at once; one that ignored its signal still counts as stopped.
        if (signal.aborted) return { ok: false as const, failure: abortedLeg(signal, report.costUsd) };
        return { ok: true as const, report };
      } catch (error) {
        return { ok: false as const, failure: legFailureOf(error, signal) };
      }
    });
    // Settled before the reply goes out, but a lost announcement (the bus not answering: an election, a
    // partition) does not fail the leg: the call has ended and is billed, so its answer is kept now and a
    // redelivery is answered from it, never by calling the provider again. The coordinator takes a
    // completion or failure of a leg whose start it never heard of, and ignores a start heard after it.
    await announced;
    if (!outcome.ok) return failed(outcome.failure);
    const { report } = outcome;
    const content = cutTo(report.content, RESEARCH_LIMITS.reportChars);
    return replyTo(command.commandId, ResearchLegCompleted, {
      ...base,
      model: report.model,
      content: content.text,
      // Not whole when the model stopped at its output limit, or when cut to fit the message: never silently.
      truncated: content.truncated || report.cutShort === true,
      local: report.local,
      usage: report.usage,
      costUsd: report.costUsd,
      latencyMs: Math.max(0, Math.round(this.clock.now() - startedAt)),
    });
  }
}
