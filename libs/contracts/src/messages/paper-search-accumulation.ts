import type { PaperCollection, ScoredPaper, UserFeedback } from './paper-search-model.js';

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

/** The final collection: the last one plus accumulated papers it does not hold (by id), appended. */
export function mergeAccumulated(collection: PaperCollection, accumulated: readonly ScoredPaper[]): PaperCollection {
  const have = new Set(collection.papers.map((p) => p.id));
  const extras = accumulated.filter((p) => !have.has(p.id));
  return extras.length === 0 ? collection : { ...collection, papers: [...collection.papers, ...extras] };
}

/** Every paper the user rejected so far, for `DeduplicatePapers.excludePaperIds` (never shown again). */
export function rejectedPaperIds(feedbacks: readonly (UserFeedback | null)[]): string[] {
  return [...new Set(feedbacks.flatMap((f) => f?.markedIrrelevant ?? []))];
}
