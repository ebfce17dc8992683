import { oneLineReading } from '../test-support/glyph-pages.js';
import { exponentsOverQuestionMarks, powersOf, questionMarksFilled, sameExponents, settledByRereads } from './exponent-tiebreak.js';
import { DEFAULT_MATHS_READING, judgeReading, type Reading } from './read-maths.js';


/** "Evaluate 9^e + 2." as one pass read it, with its exponent recovered from the ink (or not). */
const evaluate = (exponent: string, pass: Reading['pass'], recovered = 1, confidence = 80): Reading =>
  judgeReading(oneLineReading([['Evaluate', 95], [`9^${exponent}`, confidence], ['+', 95], ['2.', 93]]), pass, recovered);

describe('settling exponents the two passes read differently', () => {
  const first = evaluate('4', 'first');
  const second = evaluate('3', 'second');

  it('keeps the pass that both pages read again at another scale confirm', () => {
    expect(first.doubts).toEqual([]);
    expect(settledByRereads([first, second], [evaluate('4', 'first'), evaluate('4', 'second')], DEFAULT_MATHS_READING)).toBe(first);
    expect(settledByRereads([first, second], [evaluate('3', 'first'), evaluate('3', 'second')], DEFAULT_MATHS_READING)).toBe(second);
  });

  it('settles nothing when a re-read agrees with neither, reads no exponent, or the confirmed pass is under the bar', () => {
    const settle = (rereads: Reading[], readings = [first, second]): Reading | undefined => settledByRereads(readings, rereads, DEFAULT_MATHS_READING);
    expect(settle([evaluate('4', 'first'), evaluate('3', 'second')])).toBeUndefined();
    expect(settle([evaluate('4', 'first'), evaluate('5', 'second')])).toBeUndefined();
    expect(settle([evaluate('4', 'first'), evaluate('4', 'second', 0)])).toBeUndefined();
    expect(settle([evaluate('4', 'first', 2), evaluate('4', 'second', 2)])).toBeUndefined();
    // A pass that found one exponent fewer (its reading differs by a lost exponent, not a digit).
    expect(settle([evaluate('4', 'first'), evaluate('4', 'second')], [first, evaluate('3', 'second', 0)])).toBeUndefined();
    expect(settle([evaluate('4', 'first')])).toBeUndefined();
    expect(settle([evaluate('4', 'first'), evaluate('4', 'second')], [evaluate('4', 'first', 1, 50), second])).toBeUndefined();
  });
});

describe('two passes that recovered the same exponents', () => {
  /** "Evaluate 10x^e + 6 from x = 0 to x = 6", with the words around the maths run together or not. */
  const integral = (exponent: string, runTogether: boolean, recovered = 1): Reading =>
    judgeReading(
      oneLineReading([['Evaluate', 95], [`10x^${exponent}`, 80], ['+', 95], ['6', 93], ...(runTogether ? [['fromx=0tox=6.', 70] as const] : [['from', 95], ['x', 93], ['=', 93], ['0', 93], ['to', 95], ['x', 93], ['=', 93], ['6.', 93]] as const)]),
      runTogether ? 'first' : 'second',
      recovered,
    );

  it('given the same power on the same operand and words run together in the other pass (doubted for it), then the exponents agree', () => {
    expect(powersOf(integral('2', true))).toEqual(['10x^2']);
    expect(integral('2', true).doubts).toEqual(['"fromx=0": a word run into a relation (a term lost?)', '""fromx" sits in the maths": does not parse as maths']);
    expect(sameExponents(integral('2', false), integral('2', true))).toBe(true);
    // The chosen reading itself must be free of doubts.
    expect(sameExponents(integral('2', true), integral('2', false))).toBe(false);
  });

  it('given another exponent digit, another count recovered, or a pass with a doubt, then they do not (a real disagreement is still refused)', () => {
    expect(sameExponents(integral('2', false), integral('3', true))).toBe(false);
    expect(sameExponents(integral('2', false), integral('2', true, 0))).toBe(false);
    // The same power, but another number elsewhere: "+ 8" for "+ 6".
    const otherNumber = judgeReading(oneLineReading([['Evaluate', 95], ['10x^2', 80], ['+', 95], ['8', 93], ['from', 95], ['x', 93], ['=', 93], ['0', 93], ['to', 95], ['x', 93], ['=', 93], ['6.', 93]]), 'second', 1);
    expect(otherNumber.doubts).toEqual([]);
    expect(sameExponents(otherNumber, integral('2', true))).toBe(false);
    expect(sameExponents(evaluate('4', 'first'), evaluate('3', 'second'))).toBe(false);
    const doubted = judgeReading(oneLineReading([['Evaluate', 95], ['10x^2', 80], ['+', 95], ['s', 93]]), 'second', 1);
    expect(doubted.doubts).not.toEqual([]);
    expect(sameExponents(integral('2', false), doubted)).toBe(false);
  });
});

describe('an exponent one pass read as a raised question mark', () => {
  /** "Taking g = 9.8 m/s², how high does it rise?" read with the exponent (recovered) or with a "?" boxed raised off the s. */
  const units = (unit: 'm/s^2,' | 'm/s^3,' | 'm/s?,', pass: Reading['pass'], number = '9.8'): Reading => {
    const read = oneLineReading([['Taking', 95], ['g', 95], ['=', 93], [number, 93], [unit, 90], ['how', 95], ['high', 95], ['does', 95], ['it', 95], ['rise?', 95]]);
    const words = (read.words ?? []).map((w) =>
      w.text === 'm/s?,' ? { ...w, symbols: w.symbols.map((s) => (s.text === '?' ? { ...s, bbox: { ...s.bbox, y0: 95, y1: 115 } } : s)) } : w,
    );
    // The ink shows the s at x-height: a letter (letter-heights.ts), as on the bench's pages.
    return judgeReading({ ...read, words }, pass, unit === 'm/s?,' ? 0 : 1, { lettersAtXHeight: new Set(['s']) });
  };
  const settle = (readings: Reading[], rereads: Reading[]): Reading | undefined => exponentsOverQuestionMarks(readings, rereads, DEFAULT_MATHS_READING);

  it('given texts that differ only by "?" read as an exponent after a letter, then the exponents filled in are counted (a question ending on a letter may stay)', () => {
    expect(questionMarksFilled('g=9.8 m/s?, how high? rise?', 'g=9.8 m/s^2, how high? rise?')).toBe(1);
    expect(questionMarksFilled('g=9.8 m/s?, how high?', 'g=9.8 m/s^2 how high?')).toBeUndefined();
    expect(questionMarksFilled('g=9.8 m/s?, how high?', 'g=9.3 m/s^2, how high?')).toBeUndefined();
    expect(questionMarksFilled('g=9.8 m/s?, how high?', 'g=9.8 m/s?, how high?')).toBeUndefined();
  });

  it('given one pass with the exponent, the other doubting only its raised "?", and the other scale confirming, then the exponent reading stands', () => {
    const found = units('m/s^2,', 'second');
    const questioned = units('m/s?,', 'first');
    expect(found.doubts).toEqual([]);
    expect(questioned.doubts).toEqual(['"m/s?,": a raised question mark after a letter (an exponent misread?)']);
    expect(settle([questioned, found], [units('m/s?,', 'first'), units('m/s^2,', 'second')])).toBe(found);
    expect(settle([questioned, found], [units('m/s^2,', 'first'), units('m/s^2,', 'second')])).toBe(found);
  });

  it('given a re-read with another exponent, another number in the other pass, or no re-read confirming, then nothing stands (a real disagreement is still refused)', () => {
    const found = units('m/s^2,', 'second');
    const questioned = units('m/s?,', 'first');
    expect(settle([questioned, found], [units('m/s?,', 'first'), units('m/s^3,', 'second')])).toBeUndefined();
    expect(settle([questioned, found], [units('m/s^3,', 'first'), units('m/s^2,', 'second')])).toBeUndefined();
    expect(settle([questioned, found], [units('m/s?,', 'first'), units('m/s?,', 'second')])).toBeUndefined();
    expect(settle([units('m/s?,', 'first', '9.3'), found], [units('m/s?,', 'first', '9.3'), units('m/s^2,', 'second')])).toBeUndefined();
    expect(settle([questioned, found], [units('m/s^2,', 'second')])).toBeUndefined();
  });
});
