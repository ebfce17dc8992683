import { type Checkpoint, interpretDecision } from '@openpaw/contracts';
import { paperCollectionFixture, scoredPaperFixture } from '@openpaw/testkit';
import { unkeepableMarks, unkeepableMarksReason } from './keepable-papers.js';

const paper = (id: string) => scoredPaperFixture(id);
// The stored collection holds a third paper, "c", that the message could not carry.
const collection = paperCollectionFixture([paper('a'), paper('b')], { wholePapers: { blobKey: 'paper-search/run/whole.json', count: 3, cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } } });
const review: Checkpoint = {
  kind: 'result_review',
  checkpointId: '00000000-0000-4000-8000-000000000001',
  runId: '00000000-0000-4000-8000-000000000002',
  iteration: 2,
  createdAt: '2026-01-01T00:00:00.000Z',
  payload: { collection, accumulatedPapers: [paper('kept-before')], iteration: 2 },
};

describe('marks a review cannot keep', () => {
  it('names papers marked relevant that neither the collection message nor the earlier kept papers hold', () => {
    const marks = (markedRelevant: string[], action: 'approve' | 'edit' = 'edit') => unkeepableMarks(review, interpretDecision('result_review', { action, note: null, revisedData: { markedRelevant, markedIrrelevant: ['c'], freeText: null } }));
    expect(marks(['a', 'kept-before'])).toEqual([]);
    expect(marks(['a', 'c'])).toEqual(['c']);
    expect(marks(['c'], 'approve')).toEqual(['c']);
    // Irrelevant marks need no paper: they exclude by id, shown or not.
    expect(marks([])).toEqual([]);
    expect(unkeepableMarksReason(review, ['c'])).toMatch(/^markedRelevant: c cannot be kept: this review keeps papers from the 2 its collection message carries/);
  });

  it('leaves other decisions alone', () => {
    expect(unkeepableMarks(review, interpretDecision('result_review', { action: 'approve', note: null, revisedData: null }))).toEqual([]);
  });
});
