import type { ScoredPaper, SearchStrategy, SkillProvenance, Theme } from '@openpaw/contracts';

/** Skill 6's judgement part: the themes of a collection (the facets are counted, not judged). */
export interface Themer {
  themes(input: { readonly query: string; readonly strategy: SearchStrategy; readonly papers: readonly ScoredPaper[] }, options?: { readonly signal?: AbortSignal }): Promise<{
    readonly themes: Theme[];
    readonly provenance: SkillProvenance;
  }>;
}
