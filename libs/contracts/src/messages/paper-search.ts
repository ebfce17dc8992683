import { z } from 'zod';
import { freeText } from '../free-text.js';
import { PAPER_SEARCH_LANE } from '../lanes.js';
import { defineCommand, defineEvent } from '../message-definition.js';
import {
  MAX_PAPERS_PER_MESSAGE,
  markedPaper,
  paper,
  paperCollection,
  paperId,
  paperIdentity,
  paperSetRef,
  parsedIntent,
  resultCuts,
  scholarlySourceName,
  scoredPaper,
  searchStrategy,
  skillProvenance,
  sourceReport,
  strategyDiff,
  userFeedback,
} from './paper-search-model.js';

// The six paper-search skills (spec 04) as commands to the research service, each answered by one
// `paper-search` event carrying `commandId`, or by PaperSearchStepFailed. The skills are consumed on
// the research service's `papersearch` lane; ImportLibraryReferences on its critical lane.

const iteration = z.int().positive();
/** The skills run on their own lane (slow, rate-limited sources and LLM calls); the library import stays critical. */
const onPaperSearchLane = { lane: PAPER_SEARCH_LANE };
const papers = z.array(paper).max(MAX_PAPERS_PER_MESSAGE);
const scoredPapers = z.array(scoredPaper).max(MAX_PAPERS_PER_MESSAGE);
/**
 * Claim check (optional fields, so older senders and readers keep working): a command with
 * `papersByReference` asks for a reply whose papers are stored, `papersRef` then names them and
 * `papers` is empty. A command carrying `papersRef` is read from the store and its `papers` ignored.
 * Without the flag (a sender from before it) the reply carries its papers inline, capped to one message.
 */
const byReference = {
  /** The sender reads `papersRef` replies (papers stored, not capped to one message). */
  papersByReference: z.boolean().optional(),
};
const papersRefField = {
  /** Every paper of the list, stored (claim check); when present, `papers` is empty. */
  papersRef: paperSetRef.optional(),
};

export const ParsePaperSearchIntent = defineCommand(
  'research',
  'ParsePaperSearchIntent',
  1,
  z.object({ runId: z.uuid(), query: z.string().trim().min(1).max(2_000) }),
  "Parse the user's request into a ParsedIntent (topic, concepts, intent type, constraints); answers PaperSearchIntentParsed or PaperSearchStepFailed.",
  onPaperSearchLane,
);

export const PaperSearchIntentParsed = defineEvent(
  'paper-search',
  'PaperSearchIntentParsed',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), intent: parsedIntent, provenance: skillProvenance }),
  "The user's request is parsed.",
);

export const BuildSearchStrategy = defineCommand(
  'research',
  'BuildSearchStrategy',
  1,
  z.object({
    runId: z.uuid(),
    iteration,
    intent: parsedIntent,
    /** Every earlier iteration's strategy, oldest first. */
    previousStrategies: z.array(searchStrategy).max(50),
    /** The feedback that ended the previous iteration; null in the first. */
    feedback: userFeedback.nullable(),
    /** Sources the run may use (the user's choice, or every configured one). */
    availableSources: z.array(scholarlySourceName).min(1),
    /**
     * The papers the feedback marks, with what they are about (the feedback itself holds only ids).
     * Optional: a command from before this field steers by the free text alone.
     */
    markedPapers: z.object({ relevant: z.array(markedPaper).max(500), irrelevant: z.array(markedPaper).max(500) }).optional(),
  }),
  'Build the next SearchStrategy from the intent, the previous strategies and the feedback; answers SearchStrategyBuilt or PaperSearchStepFailed.',
  onPaperSearchLane,
);

export const SearchStrategyBuilt = defineEvent(
  'paper-search',
  'SearchStrategyBuilt',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    iteration,
    strategy: searchStrategy,
    /** From the previous iteration's strategy; null in the first iteration. */
    diff: strategyDiff.nullable(),
    provenance: skillProvenance,
  }),
  'A search strategy is proposed (checkpoint 1 shows it with its diff).',
);

export const SearchPaperSources = defineCommand(
  'research',
  'SearchPaperSources',
  1,
  z.object({
    runId: z.uuid(),
    iteration,
    /** Owner of the `library` source searched. */
    userId: z.string().min(1),
    strategy: searchStrategy,
    ...byReference,
  }),
  "Search the strategy's sources in parallel; a failing source is reported, never fails the step. Answers PaperSourcesSearched.",
  onPaperSearchLane,
);

export const PaperSourcesSearched = defineEvent(
  'paper-search',
  'PaperSourcesSearched',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    iteration,
    papers,
    ...papersRefField,
    sourceReports: z.array(sourceReport),
    /** What the message's limits cut from what the sources returned (absent from older replies). */
    cuts: resultCuts.optional(),
  }),
  'The sources answered (or failed, as reported per source); papers are not yet deduplicated.',
);

export const DeduplicatePapers = defineCommand(
  'research',
  'DeduplicatePapers',
  1,
  z.object({
    runId: z.uuid(),
    iteration,
    papers,
    /** Papers the user rejected in earlier iterations: never shown again. */
    excludePaperIds: z.array(paperId).max(2_000),
    /**
     * Papers of earlier iterations (kept, rejected, last shown), in the order their ids were first
     * assigned: a paper found again keeps its earlier id (the alias table). Optional: absent, ids
     * come from identifiers alone.
     */
    knownPapers: z.array(paperIdentity).max(2_000).optional(),
    ...papersRefField,
    ...byReference,
  }),
  'Merge duplicates (DOI, arXiv id / PMID, exact then fuzzy title) keeping every source id; answers PapersDeduplicated.',
  onPaperSearchLane,
);

export const PapersDeduplicated = defineEvent(
  'paper-search',
  'PapersDeduplicated',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    iteration,
    papers,
    ...papersRefField,
    duplicatesMerged: z.int().nonnegative(),
    rejectedExcluded: z.int().nonnegative(),
  }),
  'The papers, each once.',
);

export const ScorePapers = defineCommand(
  'research',
  'ScorePapers',
  1,
  z.object({ runId: z.uuid(), iteration, query: z.string().min(1).max(2_000), intent: parsedIntent, strategy: searchStrategy, papers, ...papersRefField, ...byReference }),
  'Score each paper for relevance with a rationale and tags; answers PapersScored or PaperSearchStepFailed.',
  onPaperSearchLane,
);

export const PapersScored = defineEvent(
  'paper-search',
  'PapersScored',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    iteration,
    papers: scoredPapers,
    ...papersRefField,
    provenance: skillProvenance,
    /** Papers (or abstracts) the message's limits cut once scored (absent from older replies). */
    cuts: resultCuts.optional(),
  }),
  'Every paper has a relevance score and a rationale, best first.',
);

export const OrganisePapers = defineCommand(
  'research',
  'OrganisePapers',
  1,
  z.object({
    runId: z.uuid(),
    iteration,
    query: freeText().min(1).max(2_000),
    strategy: searchStrategy,
    papers: scoredPapers,
    ...papersRefField,
    scoredBy: skillProvenance,
    totalFound: z.int().nonnegative(),
    duplicatesMerged: z.int().nonnegative(),
    rejectedExcluded: z.int().nonnegative(),
    sourceReports: z.array(sourceReport),
    /** What limits cut in the earlier steps, reported in the collection's metadata with the organiser's own (absent from older commands). */
    cuts: resultCuts.optional(),
    ...byReference,
  }),
  'Organise scored papers into a collection with facets and themes; answers PapersOrganised or PaperSearchStepFailed.',
  onPaperSearchLane,
);

export const PapersOrganised = defineEvent(
  'paper-search',
  'PapersOrganised',
  1,
  z.object({ runId: z.uuid(), commandId: z.string(), iteration, collection: paperCollection }),
  'The collection of an iteration (checkpoint 2 shows it).',
);

export const PAPER_SEARCH_STEPS = ['parse_intent', 'build_strategy', 'search_sources', 'deduplicate', 'score', 'organise'] as const;
export const paperSearchErrorCode = z.enum(['llm_unavailable', 'cost_cap_exceeded', 'invalid_output', 'timeout', 'invalid_input']);

export const PaperSearchStepFailed = defineEvent(
  'paper-search',
  'PaperSearchStepFailed',
  1,
  z.object({
    runId: z.uuid(),
    commandId: z.string(),
    step: z.enum(PAPER_SEARCH_STEPS),
    errorCode: paperSearchErrorCode,
    retryable: z.boolean(),
    detail: z.string().max(2_000),
  }),
  'A paper-search skill failed (a parser failure fails the run with this reason).',
);

export const ImportLibraryReferences = defineCommand(
  'research',
  'ImportLibraryReferences',
  1,
  z.object({
    /** The import's idempotency key. */
    importId: z.uuid(),
    userId: z.string().min(1),
    format: z.enum(['bibtex', 'ris']),
    /** The file's text (at most 512 KiB: larger libraries are imported in parts). */
    content: freeText().min(1).max(512 * 1024),
  }),
  "Import BibTeX or RIS references into the user's library (the local `library` source); answers LibraryReferencesImported.",
);

export const LibraryReferencesImported = defineEvent(
  'paper-search',
  'LibraryReferencesImported',
  1,
  z.object({
    importId: z.uuid(),
    commandId: z.string(),
    userId: z.string(),
    /** New references stored. */
    added: z.int().nonnegative(),
    /** References already in the library (same DOI, arXiv id or title), updated in place. */
    updated: z.int().nonnegative(),
    /** Entries that could not be read, with why. */
    skipped: z.array(z.object({ entry: z.int().nonnegative(), reason: z.string() })),
  }),
  "References are in the user's library.",
);
