import { addCuts, facetsOf, type PaperCollection, type ResultCuts, type ScoredPaper, type SearchStrategy, type SkillProvenance, type SourceReport, type Theme } from '@openpaw/contracts';
import { fitPapersToMessage } from '../papers/fit-papers-to-message.js';
import { byRelevance } from '../score/relevance-scorer.js';

export interface CollectionInput {
  readonly query: string;
  readonly iteration: number;
  readonly strategy: SearchStrategy;
  readonly papers: readonly ScoredPaper[];
  readonly totalFound: number;
  readonly duplicatesMerged: number;
  readonly rejectedExcluded: number;
  readonly sourceReports: readonly SourceReport[];
  /** What limits cut in the earlier steps (absent from older commands). */
  readonly cuts?: ResultCuts;
  readonly scoredBy: SkillProvenance;
  readonly themes: readonly Theme[];
  readonly organisedBy: SkillProvenance;
  readonly createdAt: string;
  /** The collection's papers stored whole (claim check), when they were: clients are then shown every paper. */
  readonly wholePapers?: PaperCollection['wholePapers'];
}

/**
 * Skill 6's assembly: papers best first and cut to the strategy's `maxResults` (and to what one
 * message carries), facets counted over the papers clients are shown (years newest first, venues and
 * authors by count), themes kept to those papers.
 */
export function organiseCollection(input: CollectionInput): PaperCollection {
  const whole = collectionPapers(input.papers, input.strategy);
  const fitted = fitPapersToMessage(whole);
  const papers = fitted.papers;
  // Facets and themes describe the papers a client is shown: every paper when they are stored whole
  // (every view reads the stored list), else the ones this message carries (the rest are counted in
  // `cuts.papersLeftOut`), each with its whole author list.
  const carried = new Set(papers.map((p) => p.id));
  const shown = input.wholePapers === undefined ? whole.filter((p) => carried.has(p.id)) : whole;
  return {
    metadata: {
      query: input.query,
      strategy: input.strategy,
      iteration: input.iteration,
      totalFound: input.totalFound,
      duplicatesMerged: input.duplicatesMerged,
      rejectedExcluded: input.rejectedExcluded,
      sourceReports: [...input.sourceReports],
      scoredBy: input.scoredBy,
      organisedBy: input.organisedBy,
      createdAt: input.createdAt,
      // The earlier steps' cuts and this one's: the strategy's own maxResults is a choice, not a cut.
      cuts: addCuts(input.cuts, fitted.cuts),
    },
    papers,
    facets: facetsOf(shown, input.themes),
    ...(input.wholePapers === undefined ? {} : { wholePapers: input.wholePapers }),
  };
}

/** The papers a collection holds, whole: best first, cut to the strategy's `maxResults` (a choice, not a cut). */
export function collectionPapers(papers: readonly ScoredPaper[], strategy: SearchStrategy): ScoredPaper[] {
  return [...papers].sort(byRelevance).slice(0, strategy.filters.maxResults);
}
