import type { Facets, PaperCollection, ScoredPaper, Theme, UserFeedback } from './paper-search-model.js';

/**
 * Spec 04's accumulation: papers the user marked relevant in an iteration's collection are kept
 * across iterations (each once, first kept first).
 */
export function accumulateRelevant(accumulated: readonly ScoredPaper[], collection: PaperCollection, feedback: UserFeedback | null): ScoredPaper[] {
  const relevant = new Set(feedback?.markedRelevant ?? []);
  if (relevant.size === 0) return [...accumulated];
  const have = new Set(accumulated.map((p) => p.id));
  return [...accumulated, ...collection.papers.filter((p) => relevant.has(p.id) && !have.has(p.id))];
}

/** The final collection: the last one plus accumulated papers it does not hold (by id), appended; its facets count them too. */
export function mergeAccumulated(collection: PaperCollection, accumulated: readonly ScoredPaper[]): PaperCollection {
  const have = new Set(collection.papers.map((p) => p.id));
  const extras = accumulated.filter((p) => !have.has(p.id));
  return extras.length === 0 ? collection : withPapers(collection, [...collection.papers, ...extras]);
}

/** A collection holding `papers` instead, its facets counted over them: facets always describe the papers a client is shown. */
export function withPapers(collection: PaperCollection, papers: readonly ScoredPaper[]): PaperCollection {
  return { ...collection, papers: [...papers], facets: facetsOf(papers, collection.facets.themes) };
}

/** A collection's facets: years newest first, the 20 first venues and 10 first authors by count, themes kept to the papers. */
export function facetsOf(papers: readonly ScoredPaper[], themes: readonly Theme[]): Facets {
  const count = <K>(keys: readonly K[]): [K, number][] => {
    const counts = new Map<K, number>();
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
    return [...counts];
  };
  const held = new Set(papers.map((p) => p.id));
  return {
    byYear: count(papers.flatMap((p) => (p.year === null ? [] : [p.year])))
      .sort((a, b) => b[0] - a[0])
      .map(([year, n]) => ({ year, count: n })),
    byVenue: count(papers.flatMap((p) => (p.venue === null ? [] : [p.venue])))
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 20)
      .map(([venue, n]) => ({ venue, count: n })),
    topAuthors: count(papers.flatMap((p) => p.authors.map((a) => a.name)))
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 10)
      .map(([name]) => name),
    themes: themes.map((t) => ({ ...t, paperIds: t.paperIds.filter((id) => held.has(id)) })).filter((t) => t.paperIds.length > 0),
  };
}

/** Every paper the user rejected so far, for `DeduplicatePapers.excludePaperIds` (never shown again). */
export function rejectedPaperIds(feedbacks: readonly (UserFeedback | null)[]): string[] {
  return [...new Set(feedbacks.flatMap((f) => f?.markedIrrelevant ?? []))];
}
