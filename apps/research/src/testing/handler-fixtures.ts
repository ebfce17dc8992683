import { type ResearchSettings, researchSettingsFromEnv } from '../config.js';
import { createPaperSearchSkills, type PaperSearchSkills } from '../paper-search/skills/paper-search-skills.js';
import type { LlmClient } from '@openpaw/providers';

export const testSettings: ResearchSettings = {
  ...researchSettingsFromEnv({}),
  databaseUrl: 'postgres://unused',
  poolSize: 1,
  perSourceLimit: 10,
  sourceDeadlineMs: 2_000,
  maxTokens: 500,
  scoreBatchSize: 10,
  stepDeadlineMs: 2_000,
  paperSearchConcurrency: 2,
};

export function skillsFor(llm: LlmClient): PaperSearchSkills {
  return createPaperSearchSkills(llm, { maxTokens: 500, scoreBatchSize: 10, currentYear: () => 2026 });
}

export const RUN_ID = '0195a2b4-7c1d-8e2f-9a3b-4c5d6e7f8a9b';
