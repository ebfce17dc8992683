import { oneLineReading } from '../test-support/glyph-pages.js';
import { calibrated, DEFAULT_MATHS_READING, judgeReading } from './read-maths.js';


describe('judging a reading', () => {
  it('keeps the maths words with their confidence and trusts a clean reading', () => {
    const reading = judgeReading(oneLineReading([['Solve', 95], ['5y', 70], ['+', 93], ['2', 93], ['=', 83], ['17.', 83]]), 'first');
    expect(reading.tokens.map((t) => t.text)).toEqual(['5y', '+', '2', '=', '17.']);
    expect(reading.weakest).toBeCloseTo(0.7);
    expect(reading.doubts).toEqual([]);
    expect(reading.extraction.signature?.canonical).toBe('(= (+ (* 5 v0) 2) 17)');
  });

  it('doubts a confusion, a word where an operand belongs, and a letter where a digit belongs', () => {
    expect(judgeReading(oneLineReading([['Solve', 95], ['S5y', 55], ['+', 91], ['2', 78], ['=', 44], ['17', 44]]), 'first').doubts).toEqual(
      expect.arrayContaining([expect.stringContaining('"S5y"')]),
    );
    expect(judgeReading(oneLineReading([['Solve', 93], ['by', 27], ['+', 95], ['2', 93], ['=', 69], ['17', 69]]), 'second').doubts).toEqual([
      // The maths signature's own check (issue 24) names the word touching the maths before the reader's does.
      expect.stringContaining('"by" sits in the maths'),
    ]);
    expect(judgeReading(oneLineReading([['Solve', 93], ['3x', 90], ['+', 95], ['s', 88], ['=', 90], ['68', 90]]), 'first').doubts).toEqual([
      expect.stringContaining('a lone letter where a digit is expected'),
    ]);
  });
});

describe('a sign read as two', () => {
  it('doubts a minus read as a dash and a hyphen, which would parse as a plus', () => {
    const reading = judgeReading(oneLineReading([['Solve', 93], ['8y', 90], ['—-', 97], ['25', 95], ['=', 95], ['72.', 96]]), 'first');
    expect(reading.doubts).toEqual([expect.stringContaining('one sign read as two')]);
    expect(judgeReading(oneLineReading([['Solve', 93], ['8y', 90], ['-', 97], ['25', 95], ['=', 95], ['72.', 96]]), 'first').doubts).toEqual([]);
  });
});

describe('calibrating a reading', () => {
  it('maps a passing score onto [0.9, 1] and leaves a failing one as it is', () => {
    expect(calibrated(0.6, DEFAULT_MATHS_READING)).toBeCloseTo(0.9);
    expect(calibrated(1, DEFAULT_MATHS_READING)).toBeCloseTo(1);
    expect(calibrated(0.8, DEFAULT_MATHS_READING)).toBeCloseTo(0.95);
    expect(calibrated(0.5, DEFAULT_MATHS_READING)).toBe(0.5);
  });
});
