import type { Checkpoint, PaperCollection, PaperSearchView, ScoredPaper } from '@openpaw/contracts';
import type { RunSnapshot } from '@openpaw/saga';
import type { PaperSearchData, PaperSearchState } from './paper-search.data.js';

function statusOf(state: PaperSearchState): PaperSearchView['status'] {
  switch (state) {
    case 'COMPLETED':
      return 'completed';
    case 'FAILED':
      return 'failed';
    case 'CANCELLED':
      return 'cancelled';
    case 'AWAITING_STRATEGY_CONFIRMATION':
    case 'AWAITING_RESULT_REVIEW':
      return 'waiting';
    case 'INITIATED':
    case 'PARSING_INTENT':
    case 'BUILDING_STRATEGY':
    case 'SEARCHING':
    case 'DEDUPLICATING':
    case 'SCORING':
    case 'ORGANISING':
      return 'running';
  }
}

/**
 * What the view may take as JSON: it is published in every RunStateChanged, under NATS's default
 * 1 MiB payload limit with room for the envelope.
 */
export const VIEW_BUDGET_BYTES = 900 * 1024;

type Trim = (p: ScoredPaper) => ScoredPaper;

/** Shortenings, mildest first, until the view fits. */
const TRIMS: readonly Trim[] = [
  (p) => ({ ...p, abstract: null }),
  (p) => ({ ...p, abstract: null, relevanceReason: '', authors: p.authors.slice(0, 3), sourceIds: [] }),
];

function trimmed(view: PaperSearchView, trim: Trim): PaperSearchView {
  const collection = (c: PaperCollection): PaperCollection => ({ ...c, papers: c.papers.map(trim) });
  const checkpoint: Checkpoint | null =
    view.checkpoint?.kind === 'result_review'
      ? { ...view.checkpoint, payload: { ...view.checkpoint.payload, collection: collection(view.checkpoint.payload.collection), accumulatedPapers: view.checkpoint.payload.accumulatedPapers.map(trim) } }
      : view.checkpoint;
  return { ...view, checkpoint, accumulatedPapers: view.accumulatedPapers.map(trim), result: view.result === null ? null : collection(view.result), papersTrimmed: true };
}

const fits = (view: PaperSearchView): boolean => Buffer.byteLength(JSON.stringify(view)) <= VIEW_BUDGET_BYTES;

/**
 * The public view: the open checkpoint with its payload, the accumulated papers, the result once
 * completed; its papers shortened when they would not fit in one message (`papersTrimmed`).
 */
export function paperSearchViewOf(run: RunSnapshot<PaperSearchState, PaperSearchData>): PaperSearchView {
  const view = fullViewOf(run);
  if (fits(view)) return view;
  let shortest = view;
  for (const trim of TRIMS) {
    shortest = trimmed(view, trim);
    if (fits(shortest)) return shortest;
  }
  return shortest;
}

function fullViewOf(run: RunSnapshot<PaperSearchState, PaperSearchData>): PaperSearchView {
  const d = run.data;
  return {
    status: statusOf(run.state),
    state: run.state,
    query: d.request.query,
    options: {
      strategyCheckpoint: d.request.options.strategyCheckpoint,
      autoApprove: d.request.options.autoApprove,
      maxIterations: d.request.options.maxIterations,
      sources: [...d.sources],
    },
    iteration: d.iteration,
    // Only while the run waits at it (a cancelled run keeps its last checkpoint in its data, not open).
    checkpoint: statusOf(run.state) === 'waiting' ? d.checkpoint : null,
    accumulatedPapers: [...d.accumulated],
    iterations: d.iterations.map((i) => ({ iteration: i.iteration, resultCount: i.resultCount, decision: i.decision, note: i.note, ...(i.strategyOrigin === undefined ? {} : { strategyOrigin: i.strategyOrigin }) })),
    result: d.result,
    completion: d.completion,
    error: d.error,
    papersTrimmed: false,
  };
}
