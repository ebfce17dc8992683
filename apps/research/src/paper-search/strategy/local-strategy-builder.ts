import { type SearchQuery, type SearchStrategy, searchStrategy, type SkillProvenance } from '@openpaw/contracts';
import { readFeedback } from './feedback-reading.js';
import { steeringTerms } from './marked-paper-terms.js';
import { booleanQueryOf, type QueryBuilderInput, querySignature, type StrategyBuilder } from './strategy-builder.js';

export const LOCAL_STRATEGY_PROVENANCE: SkillProvenance = {
  model: 'local/rules',
  local: true,
  method: 'LOCAL rule-based strategy (no LLM): intent concepts, feedback read by phrase rules, distinctive terms of marked papers, no synonyms',
  costUsd: 0,
};

/**
 * The local strategy builder. Query 1 holds every concept; each concept the feedback asks for gets
 * a query with the main concept; "no/without/exclude X" becomes an excluded term; time limits in the
 * feedback override the intent's. Marked papers steer: the distinctive terms of the relevant ones
 * each get a query with the main concept, those of the irrelevant ones are excluded
 * (`steeringTerms`, deterministic). When the result would search exactly what an earlier iteration
 * searched, it broadens to one query per concept, so an iteration never repeats itself silently.
 */
export class LocalStrategyBuilder implements StrategyBuilder {
  constructor(private readonly currentYear: () => number) {}

  build(input: QueryBuilderInput): Promise<{ strategy: SearchStrategy; provenance: SkillProvenance }> {
    const { intent, feedback } = input;
    const previous = input.previousStrategies.at(-1);
    const wishes = readFeedback(feedback?.freeText ?? null, this.currentYear());
    const searched = [...intent.concepts, ...input.previousStrategies.flatMap((s) => [...s.queries.flatMap((q) => q.keywords), ...s.excludedTerms]), ...wishes.include, ...wishes.exclude];
    const steer = steeringTerms(input.markedPapers, searched);
    const excludedTerms = [...new Set([...(previous?.excludedTerms ?? []), ...wishes.exclude, ...steer.exclude])].filter((t) => !wishes.include.includes(t)).slice(0, 30);
    const concepts = intent.concepts.filter((c) => !excludedTerms.includes(c));
    const main = concepts[0] ?? intent.topic.slice(0, 200);
    const query = (keywords: string[]): SearchQuery => ({ keywords, synonyms: [], booleanQuery: booleanQueryOf(keywords, excludedTerms) });
    const carried = previous?.queries.slice(1).map((q) => q.keywords).filter((k) => k.every((w) => !excludedTerms.includes(w))) ?? [];
    let queries = dedupe([query(concepts.length > 0 ? concepts.slice(0, 30) : [main]), ...carried.map(query), ...[...wishes.include, ...steer.include].filter((w) => w !== main).map((w) => query([main, w]))]);
    const filters = {
      yearFrom: wishes.yearFrom ?? previous?.filters.yearFrom ?? intent.constraints.yearFrom,
      yearTo: wishes.yearTo ?? previous?.filters.yearTo ?? intent.constraints.yearTo,
      language: previous?.filters.language ?? intent.constraints.language,
      maxResults: wishes.maxResults ?? previous?.filters.maxResults ?? intent.constraints.maxResults,
    };
    const sources = [...input.availableSources];
    const draft = (qs: SearchQuery[]): SearchStrategy => searchStrategy.parse({ queries: qs.slice(0, 10), sources, filters, excludedTerms });
    const seen = new Set(input.previousStrategies.map(querySignature));
    if (seen.has(querySignature(draft(queries))) && concepts.length > 1) {
      queries = dedupe([...queries, ...concepts.map((c) => query([c]))]);
    }
    return Promise.resolve({ strategy: draft(queries), provenance: LOCAL_STRATEGY_PROVENANCE });
  }
}

function dedupe(queries: SearchQuery[]): SearchQuery[] {
  const seen = new Set<string>();
  return queries.filter((q) => {
    const key = [...q.keywords].sort().join('+');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
