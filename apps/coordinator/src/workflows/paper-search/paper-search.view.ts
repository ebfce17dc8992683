import type { PaperSearchView } from '@openpaw/contracts';
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

/** The public view: the open checkpoint with its payload, the accumulated papers, the result once completed. */
export function paperSearchViewOf(run: RunSnapshot<PaperSearchState, PaperSearchData>): PaperSearchView {
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
    checkpoint: d.checkpoint,
    accumulatedPapers: [...d.accumulated],
    iterations: d.iterations.map((i) => ({ iteration: i.iteration, resultCount: i.resultCount, decision: i.decision, note: i.note })),
    result: d.result,
    completion: d.completion,
    error: d.error,
  };
}
