import {
  addCuts,
  BuildSearchStrategy,
  DeduplicatePapers,
  type MarkedPaper,
  markedPaperOf,
  type MessageData,
  OrganisePapers,
  type PaperIdentity,
  paperIdentityOf,
  type PaperSetRef,
  ParsePaperSearchIntent,
  ScorePapers,
  SearchPaperSources,
} from '@openpaw/contracts';
import { type Effect, type RunSnapshot, sendTry, type StepProgress } from '@openpaw/saga';
import type { PaperSearchData, StepName } from './paper-search.data.js';
import { countOf, skillOf } from './paper-search.data.js';
import type { PaperSearchSettings } from './paper-search.settings.js';

type Run = Pick<RunSnapshot<string, PaperSearchData>, 'id' | 'userId'>;

function required<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`invariant: ${what} is not known yet`);
  return value;
}

/**
 * The command of a step's latest try, rebuilt from the run's data (a retry sends the same request
 * under the try's own id). Every skill runs on the research service's `papersearch` lane.
 */
export function commandFor(run: Run, data: PaperSearchData, step: StepProgress<StepName>, settings: PaperSearchSettings): Effect {
  const skill = skillOf(step);
  const timeout = settings.timeoutsMs[skill];
  const iteration = data.iteration;
  switch (skill) {
    case 'parse_intent':
      return sendTry(ParsePaperSearchIntent, { runId: run.id, query: data.request.query }, step, timeout);
    case 'build_strategy': {
      const previous = data.iterations.map((i) => i.strategy);
      const command: MessageData<typeof BuildSearchStrategy> = {
        runId: run.id,
        iteration,
        intent: required(data.intent, 'the intent'),
        previousStrategies: previous,
        feedback: data.iterations.at(-1)?.feedback ?? null,
        availableSources: [...data.sources],
        markedPapers: markedPapersOf(data),
      };
      return sendTry(BuildSearchStrategy, command, step, timeout);
    }
    case 'search_sources':
      return sendTry(SearchPaperSources, { runId: run.id, iteration, userId: run.userId, strategy: required(data.strategy, 'the strategy'), ...BY_REFERENCE }, step, timeout);
    case 'deduplicate': {
      const found = required(data.pipeline.found, 'the papers found');
      return sendTry(DeduplicatePapers, { runId: run.id, iteration, ...papersOf(found), excludePaperIds: [...data.rejectedIds], knownPapers: knownPapersOf(data), ...BY_REFERENCE }, step, timeout);
    }
    case 'score': {
      const deduplicated = required(data.pipeline.deduplicated, 'the deduplicated papers');
      const command: MessageData<typeof ScorePapers> = {
        runId: run.id,
        iteration,
        query: data.request.query,
        intent: required(data.intent, 'the intent'),
        strategy: required(data.strategy, 'the strategy'),
        ...papersOf(deduplicated),
        ...BY_REFERENCE,
      };
      return sendTry(ScorePapers, command, step, timeout);
    }
    case 'organise': {
      const { found, deduplicated, scored } = data.pipeline;
      const command: MessageData<typeof OrganisePapers> = {
        runId: run.id,
        iteration,
        query: data.request.query,
        strategy: required(data.strategy, 'the strategy'),
        ...papersOf(required(scored, 'the scored papers')),
        scoredBy: required(scored, 'the scored papers').provenance,
        // Found by the sources: those carried (or stored) and those a message's limits left out.
        totalFound: countOf(required(found, 'the papers found')) + (found?.cuts?.papersLeftOut ?? 0),
        duplicatesMerged: required(deduplicated, 'the deduplicated papers').duplicatesMerged,
        rejectedExcluded: required(deduplicated, 'the deduplicated papers').rejectedExcluded,
        sourceReports: [...required(found, 'the papers found').sourceReports],
        cuts: addCuts(found?.cuts, scored?.cuts),
        ...BY_REFERENCE,
      };
      return sendTry(OrganisePapers, command, step, timeout);
    }
  }
}

/** Every list-making command asks for its papers stored and referenced (claim check), never capped to one message. */
const BY_REFERENCE = { papersByReference: true } as const;

/** A pipeline list as the next command carries it: its reference when stored (then no papers inline), else the papers. */
function papersOf<P>(list: { readonly papers: readonly P[]; readonly papersRef?: PaperSetRef }): { papers: P[]; papersRef?: PaperSetRef } {
  return list.papersRef === undefined ? { papers: [...list.papers] } : { papers: [], papersRef: list.papersRef };
}

/** How many earlier papers the alias table carries (the contract's bound). */
const MAX_KNOWN_PAPERS = 2_000;

/**
 * Dedup's alias table for the next iteration: the papers whose ids a person has seen or acted on, in
 * the order their ids were assigned — kept papers, rejected ones, then the last collection shown. A
 * paper found again keeps that id, so it is never listed twice nor loses its mark.
 */
export function knownPapersOf(data: PaperSearchData): PaperIdentity[] {
  const known = new Map<string, PaperIdentity>();
  const add = (identity: PaperIdentity): void => {
    if (!known.has(identity.id) && known.size < MAX_KNOWN_PAPERS) known.set(identity.id, identity);
  };
  data.accumulated.map(paperIdentityOf).forEach(add);
  (data.rejectedPapers ?? []).forEach(add);
  (data.collection?.papers ?? []).map(paperIdentityOf).forEach(add);
  return [...known.values()];
}

/**
 * The papers the feedback marks, with title, abstract and keywords, for the strategy builders:
 * relevant ones are every paper kept so far (they all say what the person wants), irrelevant ones
 * those of the last collection marked so.
 */
export function markedPapersOf(data: PaperSearchData): { relevant: MarkedPaper[]; irrelevant: MarkedPaper[] } {
  const irrelevant = new Set(data.iterations.at(-1)?.feedback?.markedIrrelevant ?? []);
  return {
    relevant: data.accumulated.slice(0, 500).map(markedPaperOf),
    irrelevant: (data.collection?.papers ?? []).filter((p) => irrelevant.has(p.id)).slice(0, 500).map(markedPaperOf),
  };
}
