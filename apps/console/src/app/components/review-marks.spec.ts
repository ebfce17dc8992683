import { feedbackOf, withMark } from './review-marks.js';

describe("checkpoint 2's marks", () => {
  const shown = ['a', 'b', 'c'];

  it('rejects only the papers marked not relevant: an unticked paper is not banned', () => {
    const marks = withMark(withMark({}, 'a', 'relevant'), 'c', 'irrelevant');
    expect(feedbackOf(shown, marks)).toEqual({ markedRelevant: ['a'], markedIrrelevant: ['c'] });
  });

  it('rejects nothing when the person only ticked relevant papers', () => {
    expect(feedbackOf(shown, withMark({}, 'b', 'relevant'))).toEqual({ markedRelevant: ['b'], markedIrrelevant: [] });
  });

  it('keeps one mark per paper: the latest wins, and clearing leaves it unmarked', () => {
    const flipped = withMark(withMark({}, 'a', 'relevant'), 'a', 'irrelevant');
    expect(feedbackOf(shown, flipped)).toEqual({ markedRelevant: [], markedIrrelevant: ['a'] });
    expect(feedbackOf(shown, withMark(flipped, 'a', null))).toEqual({ markedRelevant: [], markedIrrelevant: [] });
  });

  it('ignores marks on papers no longer shown', () => {
    expect(feedbackOf(['b'], withMark({}, 'a', 'irrelevant'))).toEqual({ markedRelevant: [], markedIrrelevant: [] });
  });

  it('never sends as relevant a paper the review cannot keep; it can still be marked not relevant', () => {
    const unmarkable = new Set(['b', 'c']);
    const marks = withMark(withMark(withMark({}, 'a', 'relevant'), 'b', 'relevant'), 'c', 'irrelevant');
    expect(feedbackOf(shown, marks, unmarkable)).toEqual({ markedRelevant: ['a'], markedIrrelevant: ['c'] });
  });
});
