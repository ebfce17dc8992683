import type { SearchStrategy, StrategyDiff } from '@openpaw/contracts';

/** What changed from the previous strategy (shown at checkpoint 1 from the second iteration on). */
export function strategyDiff(previous: SearchStrategy, next: SearchStrategy): StrategyDiff {
  const keywords = (s: SearchStrategy): string[] => [...new Set(s.queries.flatMap((q) => q.keywords))];
  const queries = (s: SearchStrategy): string[] => s.queries.map((q) => q.booleanQuery);
  const added = <T>(from: readonly T[], to: readonly T[]): T[] => to.filter((x) => !from.includes(x));
  const filterChanges: StrategyDiff['filterChanges'] = [];
  for (const field of ['yearFrom', 'yearTo', 'language', 'maxResults'] as const) {
    if (previous.filters[field] !== next.filters[field]) filterChanges.push({ field, from: previous.filters[field], to: next.filters[field] });
  }
  return {
    addedKeywords: added(keywords(previous), keywords(next)),
    removedKeywords: added(keywords(next), keywords(previous)),
    addedQueries: added(queries(previous), queries(next)),
    removedQueries: added(queries(next), queries(previous)),
    addedSources: added(previous.sources, next.sources),
    removedSources: added(next.sources, previous.sources),
    addedExcludedTerms: added(previous.excludedTerms, next.excludedTerms),
    removedExcludedTerms: added(next.excludedTerms, previous.excludedTerms),
    filterChanges,
  };
}
