import type {
  Checkpoint,
  PaperCollection,
  PAPER_SEARCH_COMPLETIONS,
  PAPER_SEARCH_STEPS,
  Paper,
  PaperIdentity,
  PaperSetRef,
  ParsedIntent,
  PaperSearchStart,
  ResultCuts,
  ScholarlySourceName,
  ScoredPaper,
  SearchStrategy,
  SkillProvenance,
  SourceReport,
  StrategyDiff,
  StrategyOrigin,
  UserFeedback,
} from '@openpaw/contracts';
import type { StepProgress } from '@openpaw/saga';

/**
 * The paper_search run's states (spec 04's pipeline: parse → build → [ckpt1] → search → dedup →
 * score → organise → [ckpt2]), each checkpoint a state waiting for a person's decision.
 */
export const PAPER_SEARCH_STATES = [
  'INITIATED',
  'PARSING_INTENT',
  'BUILDING_STRATEGY',
  'AWAITING_STRATEGY_CONFIRMATION',
  'SEARCHING',
  'DEDUPLICATING',
  'SCORING',
  'ORGANISING',
  'AWAITING_RESULT_REVIEW',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type PaperSearchState = (typeof PAPER_SEARCH_STATES)[number];

/** The spec's pipeline as a table (the definition's, derived from its rows, must equal it). */
export const PAPER_SEARCH_TRANSITIONS = {
  INITIATED: ['PARSING_INTENT', 'CANCELLED'],
  PARSING_INTENT: ['BUILDING_STRATEGY', 'FAILED', 'CANCELLED'],
  // Checkpoint 1 is optional: disabled (or auto_approve), the strategy is searched as built.
  BUILDING_STRATEGY: ['AWAITING_STRATEGY_CONFIRMATION', 'SEARCHING', 'FAILED', 'CANCELLED'],
  // APPROVE / EDIT search; REJECT is the next iteration, or the end once max_iterations are used.
  AWAITING_STRATEGY_CONFIRMATION: ['SEARCHING', 'BUILDING_STRATEGY', 'COMPLETED', 'CANCELLED'],
  SEARCHING: ['DEDUPLICATING', 'FAILED', 'CANCELLED'],
  DEDUPLICATING: ['SCORING', 'FAILED', 'CANCELLED'],
  SCORING: ['ORGANISING', 'FAILED', 'CANCELLED'],
  // Checkpoint 2 is required unless auto_approve (one automated iteration).
  ORGANISING: ['AWAITING_RESULT_REVIEW', 'COMPLETED', 'FAILED', 'CANCELLED'],
  // APPROVE completes; EDIT / REJECT iterate, or end once max_iterations are used.
  AWAITING_RESULT_REVIEW: ['COMPLETED', 'BUILDING_STRATEGY', 'CANCELLED'],
} as const satisfies Partial<Record<PaperSearchState, readonly PaperSearchState[]>>;

export type Skill = (typeof PAPER_SEARCH_STEPS)[number];
/**
 * A step is a skill in an iteration (`build_strategy:2`): each iteration's commands get their own ids,
 * so the research service's kept replies of iteration 1 never answer iteration 2. Timer families
 * (`timeout:build_strategy`, `retry:build_strategy`) drop the numeric segments.
 */
export type StepName = `${Skill}:${number}`;

export function stepNameOf(skill: Skill, iteration: number): StepName {
  return `${skill}:${iteration}`;
}

export function skillOf(step: StepProgress<StepName>): Skill {
  return step.name.split(':')[0] as Skill;
}

export interface IterationRecord {
  readonly iteration: number;
  readonly strategy: SearchStrategy;
  /** Null when checkpoint 1 rejected the strategy (nothing searched). */
  readonly resultCount: number | null;
  readonly decision: 'approve' | 'edit' | 'reject' | 'auto_approve';
  readonly note: string | null;
  readonly feedback: UserFeedback | null;
  /** Where the strategy came from; absent from iterations recorded before it. */
  readonly strategyOrigin?: StrategyOrigin;
}

/**
 * What the current iteration's pipeline has made so far (each kept until the next step answers, for
 * retries). A list is inline (`papers`), or stored by the research service and referenced
 * (`papersRef`, claim check: `papers` then empty); runs paused before the claim check have no ref.
 */
export interface Pipeline {
  readonly found: { readonly papers: readonly Paper[]; readonly papersRef?: PaperSetRef; readonly sourceReports: readonly SourceReport[]; readonly cuts?: ResultCuts } | null;
  readonly deduplicated: { readonly papers: readonly Paper[]; readonly papersRef?: PaperSetRef; readonly duplicatesMerged: number; readonly rejectedExcluded: number } | null;
  readonly scored: { readonly papers: readonly ScoredPaper[]; readonly papersRef?: PaperSetRef; readonly provenance: SkillProvenance; readonly cuts?: ResultCuts } | null;
}

/** How many papers a pipeline list holds, inline or stored. */
export function countOf(list: { readonly papers: readonly unknown[]; readonly papersRef?: PaperSetRef }): number {
  return list.papersRef?.count ?? list.papers.length;
}

export const EMPTY_PIPELINE: Pipeline = { found: null, deduplicated: null, scored: null };

export interface PaperSearchError {
  readonly step: string;
  readonly code: string;
  readonly detail: string;
}

export interface PaperSearchData {
  readonly request: PaperSearchStart;
  /** The sources this run's strategies may use (the submission's, or the configured default). */
  readonly sources: readonly ScholarlySourceName[];
  readonly startedAt: string | null;
  readonly intent: ParsedIntent | null;
  /** The iteration in progress (1-based); 0 before the first strategy is built. */
  readonly iteration: number;
  readonly step: StepProgress<StepName> | null;
  /** The current iteration's strategy (as built, or as the person edited it). */
  readonly strategy: SearchStrategy | null;
  readonly diff: StrategyDiff | null;
  /** Where the current strategy came from (the builder, or the person's edit); absent in runs paused before it. */
  readonly strategyOrigin?: StrategyOrigin | null;
  readonly pipeline: Pipeline;
  /** The latest organised collection (the last iteration's result). */
  readonly collection: PaperCollection | null;
  /** Papers marked relevant, kept across iterations. */
  readonly accumulated: readonly ScoredPaper[];
  /** Papers marked irrelevant: never shown again (DeduplicatePapers.excludePaperIds). */
  readonly rejectedIds: readonly string[];
  /**
   * What identifies each rejected paper, for dedup's alias table (`knownPapersOf`); absent in runs
   * paused before it existed, which then match rejected papers by id and identifiers alone.
   */
  readonly rejectedPapers?: readonly PaperIdentity[];
  readonly iterations: readonly IterationRecord[];
  /** The open checkpoint, while the run waits at one. */
  readonly checkpoint: Checkpoint | null;
  readonly result: PaperCollection | null;
  readonly completion: (typeof PAPER_SEARCH_COMPLETIONS)[number] | null;
  readonly error: PaperSearchError | null;
}
