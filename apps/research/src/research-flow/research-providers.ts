import type { KeyedResearchProvider, ResearchProvider } from '@openpaw/contracts';
import type { LlmClient } from '@openpaw/providers';
import type { ResearchFlowSettings } from './config.js';
import { LlmResearcher } from './researchers/llm-researcher.js';
import { LocalExtractiveResearcher } from './researchers/local-extractive-researcher.js';
import type { Researcher } from './researchers/researcher.js';
import { LlmSynthesizer } from './synthesis/llm-synthesizer.js';
import { LocalSynthesizer } from './synthesis/local-synthesizer.js';
import type { Synthesizer } from './synthesis/synthesizer.js';

/** Who answers a leg or a synthesis of each provider: the LLM port for keyed providers, the extractive local default for `local`. */
export interface ResearchProviders {
  researcherFor(provider: ResearchProvider): Researcher;
  synthesizerFor(provider: ResearchProvider): Synthesizer;
  /** The `provider/model` of a keyed provider (titles use gemini's). */
  modelOf(provider: KeyedResearchProvider): string;
}

export function createResearchProviders(llm: LlmClient, settings: ResearchFlowSettings): ResearchProviders {
  const researcher = new LlmResearcher(llm, { models: settings.models, maxTokens: settings.legMaxTokens });
  const local = new LocalExtractiveResearcher();
  const synthesizer = new LlmSynthesizer(llm, { models: settings.models, maxTokens: settings.synthesisMaxTokens });
  const localSynthesizer = new LocalSynthesizer();
  return {
    researcherFor: (provider) => (provider === 'local' ? local : researcher),
    synthesizerFor: (provider) => (provider === 'local' ? localSynthesizer : synthesizer),
    modelOf: (provider) => settings.models[provider],
  };
}
