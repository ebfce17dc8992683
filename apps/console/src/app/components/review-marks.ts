/** How a person marked one paper at checkpoint 2; a paper left unmarked is neither kept nor banned. */
export type PaperMark = 'relevant' | 'irrelevant';

export type ReviewMarks = Readonly<Record<string, PaperMark>>;

/** Marks `paperId` as `mark`, or clears it when `mark` is null (a paper has at most one mark). */
export function withMark(marks: ReviewMarks, paperId: string, mark: PaperMark | null): ReviewMarks {
  const { [paperId]: _previous, ...others } = marks;
  return mark === null ? others : { ...others, [paperId]: mark };
}

/**
 * The feedback of checkpoint 2's marks, in the order of the papers shown. Only papers the person
 * marked "not relevant" are rejected (never shown again); a paper left unticked was simply not
 * chosen, and may come back in the next iteration. A paper the review cannot keep (`unmarkable`, the
 * gateway's `unmarkablePaperIds`) is never sent as relevant: the gateway would refuse the decision.
 */
export function feedbackOf(paperIds: readonly string[], marks: ReviewMarks, unmarkable: ReadonlySet<string> = new Set()): { markedRelevant: string[]; markedIrrelevant: string[] } {
  return {
    markedRelevant: paperIds.filter((id) => marks[id] === 'relevant' && !unmarkable.has(id)),
    markedIrrelevant: paperIds.filter((id) => marks[id] === 'irrelevant'),
  };
}
