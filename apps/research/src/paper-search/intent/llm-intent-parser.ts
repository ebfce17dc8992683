import { INTENT_TYPES, type ParsedIntent, parsedIntent, type SkillProvenance } from '@openpaw/contracts';
import { z } from 'zod';
import { askStructured, type LlmSkillContext } from '../skills/llm-call.js';
import type { IntentParser } from './intent-parser.js';

export const INTENT_PROMPT_VERSION = 'paper-intent/1';

const answer = z.object({
  topic: z.string().min(1).max(500),
  concepts: z.array(z.string().min(1).max(200)).min(1).max(10),
  intent_type: z.enum(INTENT_TYPES),
  year_from: z.int().min(1000).max(3000).nullable(),
  year_to: z.int().min(1000).max(3000).nullable(),
  language: z.string().regex(/^[a-z]{2}$/).nullable(),
  max_results: z.int().min(1).max(500).nullable(),
});

/** Skill 1 through the LLM port: the request → topic, concepts, intent type and constraints. */
export class LlmIntentParser implements IntentParser {
  constructor(
    private readonly context: LlmSkillContext,
    private readonly currentYear: () => number,
  ) {}

  async parse(query: string, options: { readonly signal?: AbortSignal } = {}): Promise<{ intent: ParsedIntent; provenance: SkillProvenance }> {
    const { value, provenance } = await askStructured(
      this.context,
      [
        {
          role: 'system',
          content:
            `You turn a researcher's request for papers into a search intent. The current year is ${this.currentYear()}. ` +
            'topic: the subject in a short phrase. concepts: 1-10 key concepts, each a short noun phrase as it would appear in a paper title. ' +
            'intent_type: survey (reviews, overviews), method (techniques), dataset (datasets, benchmarks) or baseline (comparisons). ' +
            'year_from/year_to: only when the request states a time range (resolve "last 5 years" against the current year), else null. ' +
            'language: ISO 639-1 code only when a language is requested, else null. max_results: only when a number of papers is requested, else null.',
        },
        { role: 'user', content: query },
      ],
      answer,
      `LLM intent parse (${INTENT_PROMPT_VERSION})`,
      options.signal,
    );
    const intent = parsedIntent.parse({
      topic: value.topic,
      concepts: value.concepts,
      intentType: value.intent_type,
      constraints: { yearFrom: value.year_from, yearTo: value.year_to, language: value.language, maxResults: value.max_results ?? 100 },
    });
    return { intent, provenance };
  }
}
