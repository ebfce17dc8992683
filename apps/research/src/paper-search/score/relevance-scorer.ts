import type { Paper, ParsedIntent, ScoredPaper, SearchStrategy, SkillProvenance } from '@openpaw/contracts';

export interface ScoringInput {
  readonly query: string;
  readonly intent: ParsedIntent;
  readonly strategy: SearchStrategy;
  readonly papers: readonly Paper[];
}

/** Skill 5: a relevance score in [0, 1], a rationale and tags for every paper; best first. */
export interface RelevanceScorer {
  score(input: ScoringInput, options?: { readonly signal?: AbortSignal }): Promise<{ readonly papers: ScoredPaper[]; readonly provenance: SkillProvenance }>;
}

/** Best first; ties by citations, then year (newer first), then id, so the order is deterministic. */
export function byRelevance(a: ScoredPaper, b: ScoredPaper): number {
  return b.relevanceScore - a.relevanceScore || (b.citationCount ?? -1) - (a.citationCount ?? -1) || (b.year ?? 0) - (a.year ?? 0) || a.id.localeCompare(b.id);
}
