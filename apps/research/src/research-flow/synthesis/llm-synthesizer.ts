import type { KeyedResearchProvider } from '@openpaw/contracts';
import { type LlmClient, RunBudget } from '@openpaw/providers';
import { legFailureOf } from '../researchers/llm-researcher.js';
import { LegFailure, stoppedAtOutputLimit } from '../researchers/researcher.js';
import { sourcesOf, type SynthesisRequest, type SynthesisResult, type SynthesisSource, type Synthesizer } from './synthesizer.js';

/** The synthesis prompt: every source under its label, and the rule to cite labels after each sentence. */
export function synthesisMessages(prompt: string, sources: readonly SynthesisSource[]): { role: 'system' | 'user'; content: string }[] {
  return [
    {
      role: 'system',
      content:
        'You synthesise research reports written by several AI providers (and reports the user supplied) into one report in Markdown. ' +
        'After every sentence, cite the sources it rests on by their labels in square brackets, e.g. [openai] or [External 1]. ' +
        'Where sources disagree, say which source said what. Do not state anything no source states. ' +
        'End with a short "Sources" list naming each label.',
    },
    {
      role: 'user',
      content: `Research question:\n${prompt}\n\nSources:\n\n${sources.map((s) => `### ${s.heading}\n${s.content}`).join('\n\n')}`,
    },
  ];
}

/** Synthesis on a real provider with the user's key (through the same LLM port as the legs). */
export class LlmSynthesizer implements Synthesizer {
  constructor(
    private readonly llm: LlmClient,
    private readonly options: { readonly models: Readonly<Record<KeyedResearchProvider, string>>; readonly maxTokens: number },
  ) {}

  async synthesize(request: SynthesisRequest): Promise<SynthesisResult> {
    const provider = request.synthesisLlm;
    if (provider === 'local') throw new Error('the local synthesis is the extractive synthesizer');
    if (request.apiKey === null) throw new LegFailure('no_key', `no ${provider} API key for this user`);
    const budget = new RunBudget(request.runId, request.costCapUsd);
    try {
      const result = await this.llm.chat(synthesisMessages(request.prompt, sourcesOf(request.reports, request.externalReports)), {
        model: this.options.models[provider],
        fallbackModels: [],
        maxTokens: this.options.maxTokens,
        temperature: 0.2,
        credentials: { [provider]: request.apiKey },
        concurrencyKey: request.userId,
        signal: request.signal,
        budget,
        timeoutMs: 24 * 60 * 60 * 1000,
      });
      return { content: result.text, model: result.model, local: false, costUsd: result.costUsd, cutShort: stoppedAtOutputLimit(result.finishReason) };
    } catch (error) {
      throw legFailureOf(error, request.signal, budget.spentUsd);
    }
  }
}
