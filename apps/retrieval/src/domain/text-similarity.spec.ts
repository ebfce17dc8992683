import { editSimilarity, levenshtein, numbersConsistent, numbersIn, textAgreement } from './text-similarity.js';

describe('levenshtein', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['flaw', 'lawn', 2],
    ['same', 'same', 0],
  ])('%s → %s is %d', (a, b, d) => {
    expect(levenshtein(a, b)).toBe(d);
    expect(levenshtein(b, a)).toBe(d);
  });

  it('gives a similarity in [0, 1]', () => {
    expect(editSimilarity('', '')).toBe(1);
    expect(editSimilarity('abcd', 'abcx')).toBe(0.75);
    expect(editSimilarity('abc', 'xyz')).toBe(0);
  });
});

describe('numbersConsistent', () => {
  it('accepts the same numbers', () => {
    expect(numbersConsistent(['3', '7', '22'], ['3', '7', '22'])).toBe(true);
  });

  it('tolerates OCR dropping or adding a few single-digit tokens (exponents)', () => {
    // "x² − 15x" read as "x? - 15x" loses the exponent 2.
    expect(numbersConsistent(['2', '15', '30'], ['15', '30'])).toBe(true);
    expect(numbersConsistent(['7', '3', '2', '2', '9'], ['7', '3', '9'])).toBe(true);
    expect(numbersConsistent(['7', '3', '2', '2', '2', '9'], ['7', '3', '9'])).toBe(false);
  });

  it('refuses substituted numbers, single digits included: another problem of the same template', () => {
    expect(numbersConsistent(['3', '7', '22'], ['5', '7', '22'])).toBe(false);
    expect(numbersConsistent(['3', '7', '22'], ['3', '7', '23'])).toBe(false);
    expect(numbersConsistent(['12', '5'], ['12'])).toBe(true);
    expect(numbersConsistent(['12', '45'], ['12'])).toBe(false);
  });

  it('extracts integers and decimals in order', () => {
    expect(numbersIn('g=9.8 m/s^2, 1,000 kg and 3 balls')).toEqual(['9.8', '2', '1,000', '3']);
  });
});

describe('textAgreement', () => {
  it('confirms OCR readings of one problem and refuses a sibling problem', () => {
    const original = 'problem 13. evaluate the definite integral of 6x^2+9 from x=0 to x=4';
    const ocrCopy = 'problem 13. evaluate the definite integral of 6x?+9 from x=0 tox=4';
    const sibling = 'problem 13. evaluate the definite integral of 5x^2+9 from x=0 to x=4';
    expect(textAgreement(original, ocrCopy).agree).toBe(true);
    expect(textAgreement(original, sibling)).toMatchObject({ agree: false, numbersConsistent: false });
    expect(textAgreement(original, sibling).similarity).toBeGreaterThan(0.95);
  });

  it('refuses unrelated texts with matching numbers', () => {
    expect(textAgreement('a circle of radius 5', 'a train for 5 hours').agree).toBe(false);
  });
});
