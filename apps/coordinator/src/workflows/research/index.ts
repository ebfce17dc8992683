export { researchDefinition, researchViewOf, legKey, legCapTimer, LEG_CAP_TIMER, synthesisKey, missingKeys, TITLE_KEY, type Leg, type ResearchData } from './research.definition.js';
export { checkLlmCompletion, planSynthesis, type CompletionAction, type SynthesisPlan } from './research-completion.js';
export { DEFAULT_RESEARCH_TIMINGS, researchTimingsFromEnv, researchTimingsSchema, type ResearchTimings } from './research.timings.js';
export { RESEARCH_CANCELLABLE, RESEARCH_STATES, RESEARCH_TRANSITIONS, type ResearchState } from './research.transitions.js';
