import { type SearchStrategy, searchStrategy, type SkillProvenance } from '@openpaw/contracts';
import { z } from 'zod';
import { askStructured, type LlmSkillContext } from '../skills/llm-call.js';
import { booleanQueryOf, type QueryBuilderInput, type StrategyBuilder } from './strategy-builder.js';

export const STRATEGY_PROMPT_VERSION = 'paper-strategy/2';

const answer = z.object({
  queries: z
    .array(
      z.object({
        keywords: z.array(z.string().min(1).max(200)).min(1).max(8),
        synonyms: z.array(z.object({ keyword: z.string().min(1).max(200), synonyms: z.array(z.string().min(1).max(200)).max(6) })).max(8),
      }),
    )
    .min(1)
    .max(6),
  excluded_terms: z.array(z.string().min(1).max(200)).max(10),
  year_from: z.int().min(1000).max(3000).nullable(),
  year_to: z.int().min(1000).max(3000).nullable(),
});

/**
 * Skill 2 through the LLM port. The model proposes queries, synonyms and excluded terms from the
 * intent, every previous strategy and the feedback (it is told not to repeat a strategy); the
 * sources are the run's, and boolean queries are built here so they are always well formed.
 */
export class LlmStrategyBuilder implements StrategyBuilder {
  constructor(private readonly context: LlmSkillContext) {}

  async build(input: QueryBuilderInput, options: { readonly signal?: AbortSignal } = {}): Promise<{ strategy: SearchStrategy; provenance: SkillProvenance }> {
    const { value, provenance } = await askStructured(
      this.context,
      [
        {
          role: 'system',
          content:
            'You design literature search strategies for scholarly databases (OpenAlex, arXiv, Crossref, Semantic Scholar, Google Scholar). ' +
            'Give 1-6 queries; each query is 1-8 keywords or short phrases that would all appear in a relevant paper, with synonyms for key terms. ' +
            'Use the feedback: marked_papers.relevant (title, abstract, keywords) show what to find more of, marked_papers.irrelevant and the free text show what to avoid (put such terms in excluded_terms). ' +
            'Never repeat a previous strategy: change keywords, add angles, or narrow. year_from/year_to: keep the intent constraints unless the feedback changes them.',
        },
        {
          role: 'user',
          content: JSON.stringify({ intent: input.intent, previous_strategies: input.previousStrategies, feedback: input.feedback, marked_papers: input.markedPapers ?? { relevant: [], irrelevant: [] } }),
        },
      ],
      answer,
      `LLM search strategy (${STRATEGY_PROMPT_VERSION})`,
      options.signal,
    );
    const excludedTerms = [...new Set(value.excluded_terms)];
    const strategy = searchStrategy.parse({
      queries: value.queries.map((q) => ({ keywords: q.keywords, synonyms: q.synonyms, booleanQuery: booleanQueryOf(q.keywords, excludedTerms, q.synonyms) })),
      sources: input.availableSources,
      filters: { yearFrom: value.year_from, yearTo: value.year_to, language: input.intent.constraints.language, maxResults: input.intent.constraints.maxResults },
      excludedTerms,
    });
    return { strategy, provenance };
  }
}
