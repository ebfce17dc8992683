import { Inject, Injectable, Logger } from '@nestjs/common';
import { fallbackResearchTitle, type GenerateResearchTitle, type MessageData, RESEARCH_LIMITS, ResearchTitleGenerated } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import type { LlmClient } from '@openpaw/providers';
import { RESEARCH_LLM } from '../../../ports.js';
import type { ResearchFlowSettings } from '../../config.js';
import { FLOW_KEYS, FLOW_PROVIDERS, FLOW_REPLIES, FLOW_SETTINGS, type KeyOpener } from '../../ports.js';
import type { ResearchProviders } from '../../research-providers.js';
import { type FlowCommand, openKey } from '../research-command.js';

type Command = FlowCommand<MessageData<typeof GenerateResearchTitle>>;

/** A model's title, cleaned: first line, no quotes or "Title:" prefix, at most the title limit. */
export function cleanTitle(text: string): string | null {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  const bare = line.replace(/^(?:#+\s*)?(?:title\s*:\s*)?/i, '').replace(/^["'“”*_]+|["'“”*_.]+$/g, '').trim();
  return bare.length === 0 ? null : bare.slice(0, RESEARCH_LIMITS.titleChars);
}

/**
 * Titles a draft (spec Phase 1: "Auto-generated from prompt (Gemini) or fallback"): Gemini with the
 * user's key when they have one; otherwise, or when the call fails, the deterministic fallback.
 */
@Injectable()
export class GenerateResearchTitleHandler {
  private readonly logger = new Logger(GenerateResearchTitleHandler.name);

  constructor(
    @Inject(FLOW_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(FLOW_KEYS) private readonly keys: KeyOpener,
    @Inject(FLOW_PROVIDERS) private readonly providers: ResearchProviders,
    @Inject(RESEARCH_LLM) private readonly llm: LlmClient,
    @Inject(FLOW_SETTINGS) private readonly settings: ResearchFlowSettings,
  ) {}

  execute(command: Command): Promise<Reply> {
    return answerOnceWith(this.replies, command.commandId, () => this.answer(command));
  }

  private async answer(command: Command): Promise<Reply> {
    const d = command.data;
    const reply = (title: string, source: 'model' | 'fallback', model: string | null): Reply => replyTo(command.commandId, ResearchTitleGenerated, { runId: d.runId, commandId: command.commandId, title, source, model });
    const fallback = reply(fallbackResearchTitle(d.prompt), 'fallback', null);
    if (d.key === null) return fallback;
    try {
      const apiKey = openKey(this.keys, d.userId, 'gemini', d.key);
      const result = await this.llm.chat(
        [
          { role: 'system', content: 'Write a short, specific title (at most 10 words) for the research question. Answer with the title only.' },
          { role: 'user', content: d.prompt },
        ],
        {
          model: this.providers.modelOf('gemini'),
          fallbackModels: [],
          maxTokens: 40,
          temperature: 0.2,
          credentials: { gemini: apiKey ?? undefined },
          concurrencyKey: d.userId,
          signal: AbortSignal.timeout(this.settings.titleTimeoutMs),
        },
      );
      const title = cleanTitle(result.text);
      return title === null ? fallback : reply(title, 'model', result.model);
    } catch (error) {
      this.logger.warn({ runId: d.runId, err: error instanceof Error ? error.message : String(error) }, 'title model unavailable; using the fallback title');
      return fallback;
    }
  }
}
