import type { Checkpoint, InterpretedDecision } from '@openpaw/contracts';

/** An open review's payload (checkpoint 2). */
export type ReviewPayload = Extract<Checkpoint, { kind: 'result_review' }>['payload'];

/**
 * Papers a checkpoint-2 decision marks relevant that the search cannot keep: the saga keeps a marked
 * paper from the collection its message carried (or the papers kept before), and the view may show
 * more (the stored whole collection, when one message could not carry every paper). A mark the saga
 * would drop is refused here, naming the papers, rather than lost.
 */
export function unkeepableMarks(open: Checkpoint, meaning: InterpretedDecision): string[] {
  if (open.kind !== 'result_review' || (meaning.kind !== 'complete' && meaning.kind !== 'iterate') || meaning.feedback === null) return [];
  const keepable = keepablePaperIds(open.payload);
  return meaning.feedback.markedRelevant.filter((id) => !keepable.has(id));
}

/** The ids a review can keep when marked relevant: its collection message's papers and those kept before (as the saga's accumulation reads them). */
export function keepablePaperIds(review: Pick<ReviewPayload, 'collection' | 'accumulatedPapers'>): Set<string> {
  return new Set([...review.collection.papers, ...review.accumulatedPapers].map((p) => p.id));
}

/** The refusal's words: which papers, and why. */
export function unkeepableMarksReason(open: Checkpoint, ids: readonly string[]): string {
  const carried = open.kind === 'result_review' ? open.payload.collection.papers.length : 0;
  const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
  return `markedRelevant: ${shown} cannot be kept: this review keeps papers from the ${carried} its collection message carries (best first) and those kept before; a paper beyond them is shown and exported, but marking it relevant needs a later iteration that returns it among the first ${carried}`;
}
