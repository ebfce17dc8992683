import { z } from 'zod';
import { freeText } from '../free-text.js';

/**
 * The paper-search domain (spec 04): intent, strategy, feedback, papers, collections, checkpoints and
 * decisions. Field names are camelCase like every other contract; the spec's snake_case names map
 * one to one (`revised_data` → `revisedData`, `marked_relevant` → `markedRelevant`, ...).
 *
 * Shapes embedded in messages strip unknown fields (consumers ignore what they do not know). What a
 * person types in a decision is parsed with the `...Edit` schemas, which reject unknown fields, so a
 * typo in an edited strategy is an error, not a silently dropped change.
 */

export const INTENT_TYPES = ['survey', 'method', 'dataset', 'baseline'] as const;
export const intentType = z.enum(INTENT_TYPES);
export type IntentType = z.infer<typeof intentType>;

export const PAPER_TAGS = ['method', 'review', 'empirical', 'theoretical', 'dataset'] as const;
export const paperTag = z.enum(PAPER_TAGS);
export type PaperTag = z.infer<typeof paperTag>;

/** Scholarly sources by name: the five remote adapters and the user's own `library`. */
export const SCHOLARLY_SOURCE_NAMES = ['library', 'openalex', 'arxiv', 'crossref', 'semantic_scholar', 'serpapi_scholar'] as const;
export const scholarlySourceName = z.enum(SCHOLARLY_SOURCE_NAMES);
/** The sources that need no key (OpenAlex, arXiv, Crossref): on by default, in the research service and in the runs that name none. */
export const KEYLESS_SCHOLARLY_SOURCES = ['openalex', 'arxiv', 'crossref'] as const satisfies readonly (typeof SCHOLARLY_SOURCE_NAMES)[number][];
export type ScholarlySourceName = z.infer<typeof scholarlySourceName>;

const year = z.int().min(1000).max(3000);
const term = freeText().trim().min(1).max(200);

const searchConstraintsShape = {
  yearFrom: year.nullable().default(null),
  yearTo: year.nullable().default(null),
  /** ISO 639-1 code, when the user asked for one language. */
  language: z.string().regex(/^[a-z]{2}$/).nullable().default(null),
  maxResults: z.int().min(1).max(500).default(100),
};
const yearsInOrder = (c: { yearFrom: number | null; yearTo: number | null }): boolean => c.yearFrom === null || c.yearTo === null || c.yearFrom <= c.yearTo;
const yearsMessage = { message: 'yearFrom must not be after yearTo', path: ['yearTo'] };

export const searchConstraints = z.object(searchConstraintsShape).refine(yearsInOrder, yearsMessage);
export type SearchConstraints = z.infer<typeof searchConstraints>;

export const parsedIntent = z.object({
  topic: freeText().trim().min(1).max(500),
  concepts: z.array(term).min(1).max(20),
  intentType,
  constraints: searchConstraints,
});
export type ParsedIntent = z.infer<typeof parsedIntent>;

const synonymGroupShape = { keyword: term, synonyms: z.array(term).max(20) };
const searchQueryShape = {
  keywords: z.array(term).min(1).max(30),
  synonyms: z.array(z.object(synonymGroupShape)).max(30).default([]),
  /** The query as sent to sources that take boolean syntax (`"a b" AND (c OR d)`). */
  booleanQuery: freeText().trim().min(1).max(1_000),
};
export const searchQuery = z.object(searchQueryShape);
export type SearchQuery = z.infer<typeof searchQuery>;

const strategyShape = {
  queries: z.array(searchQuery).min(1).max(10),
  sources: z.array(scholarlySourceName).min(1).max(SCHOLARLY_SOURCE_NAMES.length),
  filters: searchConstraints,
  /** Terms a paper must not be about (from feedback such as "no surveys"); dropped when scoring. */
  excludedTerms: z.array(term).max(30).default([]),
};
export const searchStrategy = z.object(strategyShape);
export type SearchStrategy = z.infer<typeof searchStrategy>;

/** A strategy as a person edits it at checkpoint 1: unknown fields are errors. */
export const searchStrategyEdit = z.strictObject({
  ...strategyShape,
  queries: z.array(z.strictObject({ ...searchQueryShape, synonyms: z.array(z.strictObject(synonymGroupShape)).max(30).default([]) })).min(1).max(10),
  filters: z.strictObject(searchConstraintsShape).refine(yearsInOrder, yearsMessage),
});

export const paperId = z.string().min(1).max(200);

/** Abstracts travel in messages: longer ones are cut (with an ellipsis) where papers are made. */
export const MAX_ABSTRACT_CHARS = 1_500;
/** Papers in one message (a search's results, a collection). */
export const MAX_PAPERS_PER_MESSAGE = 200;
/**
 * What the papers of one message may take as JSON, leaving room for the rest under NATS's default
 * 1 MiB payload limit; producers trim to it (`fitPapersToMessage` in the research service).
 */
export const MAX_PAPERS_JSON_BYTES = 768 * 1024;

/**
 * A list of papers the research service stored instead of sending (claim check): the message carries
 * this reference, the papers stay in the shared blob store, so a list is never capped to one message.
 * The key is derived from the command that made the list, so a redelivery writes the same object.
 */
export const paperSetRef = z.object({
  /** Blob key of the stored JSON array (`paper-search/<runId>/<id>.json`). */
  blobKey: z.string().min(1).max(1_024),
  /** Papers in the stored list. */
  count: z.int().nonnegative(),
});
export type PaperSetRef = z.infer<typeof paperSetRef>;

/** Authors kept per paper (consortium papers list thousands); the rest are cut and counted in `resultCuts`. */
export const MAX_AUTHORS_PER_PAPER = 50;

/**
 * What the limits above cut from one iteration's results, so nothing is cut silently: the
 * collection's metadata carries it, and the view, the CLI and the exports report it.
 */
export const resultCuts = z.object({
  /** Papers the sources returned but no message could carry (`MAX_PAPERS_PER_MESSAGE`, `MAX_PAPERS_JSON_BYTES`). */
  papersLeftOut: z.int().nonnegative(),
  /** Abstracts shortened: to `MAX_ABSTRACT_CHARS` where papers are made, or further to fit a message (one paper may count at both). */
  abstractsShortened: z.int().nonnegative(),
  /** Author lists cut to their first `MAX_AUTHORS_PER_PAPER` names. */
  authorListsShortened: z.int().nonnegative(),
});
export type ResultCuts = z.infer<typeof resultCuts>;

export const NO_CUTS: ResultCuts = { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 };

/** The cuts of several steps together. */
export function addCuts(...parts: readonly (ResultCuts | undefined)[]): ResultCuts {
  return parts.reduce<ResultCuts>(
    (sum, part) =>
      part === undefined
        ? sum
        : { papersLeftOut: sum.papersLeftOut + part.papersLeftOut, abstractsShortened: sum.abstractsShortened + part.abstractsShortened, authorListsShortened: sum.authorListsShortened + part.authorListsShortened },
    NO_CUTS,
  );
}

/** What a reader is told of the cuts (`[]` when nothing was cut): one sentence per kind. */
export function describeCuts(cuts: ResultCuts | undefined): string[] {
  if (cuts === undefined) return [];
  const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  return [
    ...(cuts.papersLeftOut > 0 ? [`${plural(cuts.papersLeftOut, 'paper', 'papers')} found but left out: one message carries at most ${MAX_PAPERS_PER_MESSAGE} papers`] : []),
    ...(cuts.abstractsShortened > 0 ? [`${plural(cuts.abstractsShortened, 'abstract', 'abstracts')} shortened (to ${MAX_ABSTRACT_CHARS} characters, or less to fit a message)`] : []),
    ...(cuts.authorListsShortened > 0 ? [`${plural(cuts.authorListsShortened, 'author list', 'author lists')} cut to the first ${MAX_AUTHORS_PER_PAPER} names`] : []),
  ];
}

const feedbackShape = {
  markedRelevant: z.array(paperId).max(500).default([]),
  markedIrrelevant: z.array(paperId).max(500).default([]),
  freeText: freeText().trim().max(4_000).nullable().default(null),
};
export const userFeedback = z.object(feedbackShape);
export type UserFeedback = z.infer<typeof userFeedback>;
/** Feedback as a person gives it at checkpoint 2: unknown fields are errors. */
export const userFeedbackEdit = z.strictObject(feedbackShape);

/** What changed from the previous iteration's strategy, shown at checkpoint 1. */
export const strategyDiff = z.object({
  addedKeywords: z.array(z.string()),
  removedKeywords: z.array(z.string()),
  addedQueries: z.array(z.string()),
  removedQueries: z.array(z.string()),
  addedSources: z.array(scholarlySourceName),
  removedSources: z.array(scholarlySourceName),
  addedExcludedTerms: z.array(z.string()),
  removedExcludedTerms: z.array(z.string()),
  filterChanges: z.array(z.object({ field: z.string(), from: z.union([z.string(), z.number()]).nullable(), to: z.union([z.string(), z.number()]).nullable() })),
});
export type StrategyDiff = z.infer<typeof strategyDiff>;

export const paperAuthor = z.object({ name: z.string().min(1).max(300), id: z.string().max(200).nullable().default(null) });
export type PaperAuthor = z.infer<typeof paperAuthor>;

/** One source's own id for a paper (an OpenAlex W-id, a Semantic Scholar paperId, a BibTeX key, ...). */
export const sourceRecordId = z.object({ source: scholarlySourceName, id: z.string().min(1).max(300) });
export type SourceRecordId = z.infer<typeof sourceRecordId>;

/** What kind of record a paper is, where its source says (exports pick the BibTeX/RIS/CSL type from it). */
export const PAPER_KINDS = ['journal_article', 'conference_paper', 'preprint', 'book', 'book_chapter', 'thesis', 'report', 'dataset', 'other'] as const;
export const paperKind = z.enum(PAPER_KINDS);
export type PaperKind = z.infer<typeof paperKind>;

export const paper = z.object({
  /** Stable across iterations: derived from the strongest identifier (DOI, arXiv id, PMID, title). */
  id: paperId,
  title: z.string().min(1).max(2_000),
  authors: z.array(paperAuthor).max(200),
  year: year.nullable(),
  venue: z.string().max(500).nullable(),
  /** Sources' abstracts are cut to `MAX_ABSTRACT_CHARS`, so a collection fits in one message. */
  abstract: z.string().max(MAX_ABSTRACT_CHARS).nullable(),
  /** Normalised: lower case, no resolver prefix (`10.1000/xyz`). */
  doi: z.string().max(300).nullable(),
  /** Without version (`2101.00001`, `hep-th/9901001`). */
  arxivId: z.string().max(100).nullable(),
  pmid: z.string().regex(/^\d{1,10}$/).nullable(),
  url: z.string().max(2_000).nullable(),
  pdfUrl: z.string().max(2_000).nullable(),
  citationCount: z.int().nonnegative().nullable(),
  sources: z.array(scholarlySourceName).min(1),
  /** Every source's ids, kept through dedup. */
  sourceIds: z.array(sourceRecordId),
  /** Absent when no source said (then exports read the venue). Optional: papers from before it have none. */
  kind: paperKind.optional(),
});
export type Paper = z.infer<typeof paper>;

export const scoredPaper = paper.extend({
  relevanceScore: z.number().min(0).max(1),
  relevanceReason: z.string().max(1_000),
  tags: z.array(paperTag).max(PAPER_TAGS.length),
});
export type ScoredPaper = z.infer<typeof scoredPaper>;

/**
 * What identifies a paper seen in an earlier iteration, for dedup's alias table: a later record of
 * the same work (by identifier or title) keeps this first-assigned id, so ids do not change between
 * iterations. Small on purpose: it travels in every DeduplicatePapers command.
 */
export const paperIdentity = z.object({
  id: paperId,
  title: z.string().min(1).max(2_000),
  firstAuthor: z.string().max(300).nullable(),
  year: year.nullable(),
  doi: z.string().max(300).nullable(),
  arxivId: z.string().max(100).nullable(),
  pmid: z.string().regex(/^\d{1,10}$/).nullable(),
});
export type PaperIdentity = z.infer<typeof paperIdentity>;

/** The identity of a paper (see `paperIdentity`). */
export function paperIdentityOf(p: Paper): PaperIdentity {
  return { id: p.id, title: p.title, firstAuthor: p.authors[0]?.name ?? null, year: p.year, doi: p.doi, arxivId: p.arxivId, pmid: p.pmid };
}

/** Abstracts of marked papers are cut to this in BuildSearchStrategy: enough to steer, small enough for 500 marks. */
export const MARKED_PAPER_ABSTRACT_CHARS = 600;

/** A paper the user marked, as the strategy builders read it: what it is about, not just its id. */
export const markedPaper = z.object({
  id: paperId,
  title: z.string().min(1).max(2_000),
  abstract: z.string().max(MARKED_PAPER_ABSTRACT_CHARS).nullable(),
  /** The paper's tags (method, review, ...) and venue: what kind of work it is. */
  keywords: z.array(z.string().min(1).max(500)).max(20),
});
export type MarkedPaper = z.infer<typeof markedPaper>;

/** A paper as the strategy builders read a mark (abstract cut to `MARKED_PAPER_ABSTRACT_CHARS`). */
export function markedPaperOf(p: ScoredPaper): MarkedPaper {
  const abstract = p.abstract === null ? null : p.abstract.length <= MARKED_PAPER_ABSTRACT_CHARS ? p.abstract : `${p.abstract.slice(0, MARKED_PAPER_ABSTRACT_CHARS - 1)}…`;
  return { id: p.id, title: p.title, abstract, keywords: [...p.tags, ...(p.venue === null ? [] : [p.venue])] };
}

export const SOURCE_ERROR_KINDS = ['rate_limited', 'server_error', 'timeout', 'network', 'malformed_response', 'auth', 'bad_request', 'not_configured', 'aborted'] as const;

/** How one source did in one search; a failed source never fails the run. */
export const sourceReport = z.object({
  source: scholarlySourceName,
  status: z.enum(['ok', 'failed']),
  count: z.int().nonnegative(),
  /** What the source said it has in total, where it says. */
  totalAvailable: z.int().nonnegative().nullable(),
  durationMs: z.number().nonnegative(),
  error: z.object({ kind: z.enum(SOURCE_ERROR_KINDS), message: z.string().max(1_000) }).nullable(),
  /**
   * Parts of the approved query the source's API cannot express, applied here to its results instead
   * (`NOT`, `AND/OR`, `language`). Absent in reports made before sources received the whole strategy.
   */
  appliedLocally: z.array(z.string().max(200)).max(10).optional(),
  /** Parts of the approved query that could not be applied at all, with why ("language: arXiv records carry no language"). */
  notApplied: z.array(z.string().max(300)).max(10).optional(),
  /**
   * Results the source returned that the local filter (`appliedLocally`) then removed, never counted in
   * `count`; `withoutAbstract` of them had no abstract, so only their title was matched. Absent in
   * reports made before drops were counted.
   */
  droppedLocally: z.object({ count: z.int().nonnegative(), withoutAbstract: z.int().nonnegative() }).optional(),
});
export type SourceReport = z.infer<typeof sourceReport>;

/** What a source's local filter removed, in words ("crossref: 3 results dropped by the filter applied locally (…)"); null when it removed none. */
export function describeLocalDrops(report: Pick<SourceReport, 'source' | 'droppedLocally'>): string | null {
  const dropped = report.droppedLocally;
  if (dropped === undefined || dropped.count === 0) return null;
  const noAbstract = dropped.withoutAbstract === 0 ? '' : ` (${dropped.withoutAbstract === dropped.count ? (dropped.count === 1 ? 'it' : 'all') : dropped.withoutAbstract} had no abstract: only the title was matched)`;
  return `${report.source}: ${dropped.count} ${dropped.count === 1 ? 'result' : 'results'} dropped by the filter applied locally${noAbstract}`;
}

/** How papers were scored or organised: by an LLM, or by the local lexical stand-in (and it says so). */
export const skillProvenance = z.object({
  model: z.string(),
  local: z.boolean(),
  method: z.string().max(300),
  costUsd: z.number().nonnegative(),
});
export type SkillProvenance = z.infer<typeof skillProvenance>;

/** Where a strategy came from: the planner model, the local rules (no model was asked), or the person's edit at checkpoint 1. */
export const STRATEGY_ORIGINS = ['planner_model', 'local_rules', 'user_edit'] as const;
export const strategyOrigin = z.object({
  origin: z.enum(STRATEGY_ORIGINS),
  /** The model that planned it (`openai/gpt-4o-mini`, `local/rules`); null for a person's edit. */
  model: z.string().nullable(),
  /** How, in words (the builder's method, or "edited by you at checkpoint 1"). */
  method: z.string().max(300),
});
export type StrategyOrigin = z.infer<typeof strategyOrigin>;

/** The origin of a strategy a builder made, from how it was made. */
export function strategyOriginOf(builtBy: SkillProvenance): StrategyOrigin {
  return { origin: builtBy.local ? 'local_rules' : 'planner_model', model: builtBy.model, method: builtBy.method.slice(0, 300) };
}

export const USER_EDITED_STRATEGY: StrategyOrigin = { origin: 'user_edit', model: null, method: 'edited by you at checkpoint 1' };

/** Where a strategy came from, as a reader is told it. */
export function describeStrategyOrigin(origin: StrategyOrigin): string {
  switch (origin.origin) {
    case 'planner_model':
      return `proposed by the planner model ${origin.model ?? ''}`.trimEnd();
    case 'local_rules':
      return 'proposed by local rules (no model was asked: no planner model is configured)';
    case 'user_edit':
      return 'your edit at checkpoint 1';
  }
}

export const theme = z.object({ name: z.string().min(1).max(200), summary: z.string().max(1_000), paperIds: z.array(paperId) });
export type Theme = z.infer<typeof theme>;

export const facets = z.object({
  byYear: z.array(z.object({ year, count: z.int().positive() })),
  byVenue: z.array(z.object({ venue: z.string(), count: z.int().positive() })),
  topAuthors: z.array(z.string()),
  themes: z.array(theme),
});
export type Facets = z.infer<typeof facets>;

export const searchMetadata = z.object({
  query: z.string(),
  strategy: searchStrategy,
  iteration: z.int().positive(),
  /** Papers found by the sources before dedup. */
  totalFound: z.int().nonnegative(),
  duplicatesMerged: z.int().nonnegative(),
  /** Papers left out because the user rejected them in an earlier iteration. */
  rejectedExcluded: z.int().nonnegative(),
  sourceReports: z.array(sourceReport),
  scoredBy: skillProvenance,
  organisedBy: skillProvenance,
  createdAt: z.iso.datetime(),
  /** What limits cut from this iteration's results (`describeCuts` words it). Absent from collections made before it. */
  cuts: resultCuts.optional(),
});
export type SearchMetadata = z.infer<typeof searchMetadata>;

/**
 * A collection's papers, whole, stored by the research service (claim check): `papers` may be shortened
 * to fit a message (and the view further), these are not; exports read them. `cuts`: what the stored
 * papers lack (the earlier steps' cuts alone, not the message's).
 */
export const wholePapersRef = paperSetRef.extend({ cuts: resultCuts });
export type WholePapersRef = z.infer<typeof wholePapersRef>;

export const paperCollection = z.object({
  metadata: searchMetadata,
  papers: z.array(scoredPaper),
  facets,
  /** Absent from collections made before the claim check, or when the research service had no blob store. */
  wholePapers: wholePapersRef.optional(),
});
export type PaperCollection = z.infer<typeof paperCollection>;

// ---- checkpoints and decisions ----

export const CHECKPOINT_KINDS = ['strategy_confirmation', 'result_review'] as const;
export const checkpointKind = z.enum(CHECKPOINT_KINDS);
export type CheckpointKind = z.infer<typeof checkpointKind>;

export const strategyCheckpointPayload = z.object({
  intent: parsedIntent,
  strategy: searchStrategy,
  iteration: z.int().positive(),
  /** Null in the first iteration. */
  diff: strategyDiff.nullable(),
  /** Who proposed the strategy: the planner model or the local rules. Absent from checkpoints opened before it. */
  origin: strategyOrigin.optional(),
});

export const resultCheckpointPayload = z.object({
  collection: paperCollection,
  accumulatedPapers: z.array(scoredPaper),
  iteration: z.int().positive(),
});

const checkpointCommon = {
  checkpointId: z.uuid(),
  runId: z.uuid(),
  iteration: z.int().positive(),
  createdAt: z.iso.datetime(),
};

/** The unified checkpoint object: a kind and its payload. */
export const checkpoint = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('strategy_confirmation'), payload: strategyCheckpointPayload, ...checkpointCommon }),
  z.object({ kind: z.literal('result_review'), payload: resultCheckpointPayload, ...checkpointCommon }),
]);
export type Checkpoint = z.infer<typeof checkpoint>;

export const DECISION_ACTIONS = ['approve', 'edit', 'reject'] as const;
export const decisionAction = z.enum(DECISION_ACTIONS);
export type DecisionAction = z.infer<typeof decisionAction>;

/**
 * A person's decision at a checkpoint. `revisedData` is a SearchStrategy (checkpoint 1) or a
 * UserFeedback (checkpoint 2); `interpretDecision` validates it against the checkpoint's kind.
 */
export const decision = z.strictObject({
  action: decisionAction,
  revisedData: z.unknown().optional(),
  note: freeText().trim().max(4_000).nullable().default(null),
});
export type Decision = z.infer<typeof decision>;
