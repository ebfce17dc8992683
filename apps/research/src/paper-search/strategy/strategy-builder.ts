import type { ParsedIntent, ScholarlySourceName, SearchStrategy, SkillProvenance, UserFeedback } from '@openpaw/contracts';

/** The iteration model of spec 04: intent + previous strategies + the latest feedback. */
export interface QueryBuilderInput {
  readonly intent: ParsedIntent;
  readonly previousStrategies: readonly SearchStrategy[];
  readonly feedback: UserFeedback | null;
  readonly availableSources: readonly ScholarlySourceName[];
}

/** Skill 2: QueryBuilderInput → the next SearchStrategy. */
export interface StrategyBuilder {
  build(input: QueryBuilderInput, options?: { readonly signal?: AbortSignal }): Promise<{ readonly strategy: SearchStrategy; readonly provenance: SkillProvenance }>;
}

/** `"graph neural networks" AND molecules NOT "review"` */
export function booleanQueryOf(keywords: readonly string[], excludedTerms: readonly string[] = []): string {
  const quote = (k: string): string => (/\s/.test(k) ? `"${k.replace(/"/g, '')}"` : k.replace(/"/g, ''));
  const positive = keywords.map(quote).join(' AND ');
  const negative = excludedTerms.map((t) => ` NOT ${quote(t)}`).join('');
  return `${positive}${negative}`.slice(0, 1_000);
}

/** A canonical form of a strategy's queries, to tell whether two strategies would search the same. */
export function querySignature(strategy: SearchStrategy): string {
  return strategy.queries
    .map((q) => [...q.keywords].map((k) => k.toLowerCase()).sort().join('+'))
    .sort()
    .join('|');
}
