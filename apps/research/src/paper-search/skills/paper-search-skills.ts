import type { LlmClient } from '@openpaw/providers';
import { LlmIntentParser } from '../intent/llm-intent-parser.js';
import { LocalIntentParser } from '../intent/local-intent-parser.js';
import type { IntentParser } from '../intent/intent-parser.js';
import { LlmThemer } from '../organise/llm-themer.js';
import { LocalThemer } from '../organise/local-themer.js';
import type { Themer } from '../organise/themer.js';
import { LexicalRelevanceScorer } from '../score/lexical-relevance-scorer.js';
import { LlmRelevanceScorer } from '../score/llm-relevance-scorer.js';
import type { RelevanceScorer } from '../score/relevance-scorer.js';
import { LlmStrategyBuilder } from '../strategy/llm-strategy-builder.js';
import { LocalStrategyBuilder } from '../strategy/local-strategy-builder.js';
import type { StrategyBuilder } from '../strategy/strategy-builder.js';

/** The judgement skills (search and dedup need no model). */
export interface PaperSearchSkills {
  readonly intentParser: IntentParser;
  readonly strategyBuilder: StrategyBuilder;
  readonly scorer: RelevanceScorer;
  readonly themer: Themer;
  /** True when every skill is the local stand-in. */
  readonly local: boolean;
}

export interface SkillSettings {
  readonly maxTokens: number;
  readonly scoreBatchSize: number;
  readonly currentYear: () => number;
}

/**
 * The skills for an LLM client: through the LLM port when a real model is configured; when the
 * client would only ever answer with the local deterministic model (no provider credentials), the
 * local stand-ins, which compute their answers by rules and lexical overlap and say so in every
 * provenance (`local: true`, a `LOCAL ...` method).
 */
export function createPaperSearchSkills(llm: LlmClient, settings: SkillSettings): PaperSearchSkills {
  if (answersOnlyLocally(llm)) {
    return {
      intentParser: new LocalIntentParser(settings.currentYear),
      strategyBuilder: new LocalStrategyBuilder(settings.currentYear),
      scorer: new LexicalRelevanceScorer(),
      themer: new LocalThemer(),
      local: true,
    };
  }
  const context = { llm, maxTokens: settings.maxTokens };
  return {
    intentParser: new LlmIntentParser(context, settings.currentYear),
    strategyBuilder: new LlmStrategyBuilder(context),
    scorer: new LlmRelevanceScorer(context, settings.scoreBatchSize),
    themer: new LlmThemer(context),
    local: false,
  };
}

export function answersOnlyLocally(llm: LlmClient): boolean {
  const { defaultModel, fallbackModels } = llm.describe();
  return [defaultModel, ...fallbackModels].every((m) => m.startsWith('local/'));
}
