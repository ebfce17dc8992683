import type { OcrBox, OcrWord } from '../ocr-pool.js';
import { confusion, crowdedDigits, digitReadAsLetter, falseNumericEquation, garbledTimes, isItemLabel, isMathsWord, lostExponent, mixedRelations, raisedQuestionMark, symbolInsideMaths, wordGluedToRelation } from './token-checks.js';

const box = (x0: number, y0: number, x1: number, y1: number) => ({ x0, y0, x1, y1 });

/** A word whose characters sit on one baseline (y 100..140), except the ones listed as raised. */
function word(text: string, raised: readonly number[] = [], x = 0): OcrWord {
  const symbols = [...text].map((c, i) => ({ text: c, bbox: raised.includes(i) ? box(x + i * 20, 92, x + i * 20 + 14, 116) : box(x + i * 20, 100, x + i * 20 + 18, 140) }));
  return { text, confidence: 90, line: 0, bbox: box(x, 92, x + text.length * 20, 140), symbols };
}

describe('maths token checks', () => {
  it('counts words with digits or operators as maths', () => {
    expect(['4x', '=', '23.', '−9', '(x', 'x²'].every((t) => isMathsWord({ text: t }))).toBe(true);
    expect(['Solve', 'for', 'x', 'when'].some((t) => isMathsWord({ text: t }))).toBe(false);
  });

  it.each([
    ['S5y', 'letter that looks like a digit before a digit'],
    ['l2', 'letter that looks like a digit before a digit'],
    ['1o0', 'letter between digits'],
    ["2'", 'quote glued to a digit (an exponent misread?)'],
  ])('flags %s as a digit/letter confusion', (text, reason) => {
    expect(confusion({ text })).toBe(reason);
  });

  it.each(['5y', '4x', '23', 'x1', '12?', '25%', '45°', '9.8'])('leaves %s alone', (text) => {
    expect(confusion({ text })).toBeUndefined();
  });

  it('spots raised digits that the text does not mark as an exponent', () => {
    const line = [word('Evaluate', [], 0), word('210', [1, 2], 200), word('+', [], 280), word('35', [1], 320)];
    expect(lostExponent(line[1] as OcrWord, line)).toBe(true);
    expect(lostExponent(line[3] as OcrWord, line)).toBe(true);
    expect(lostExponent(word('2^10', [2, 3], 200), line)).toBe(false);
    expect(lostExponent(line[0] as OcrWord, line)).toBe(false);
  });
});

describe('symbols inside maths', () => {
  it.each(['evaluate 5 deg+8%', 'evaluate 6?+74', "compute 2'-1", 'the roots of x?-15x+4=0', 'simplify (7a^3b^2)?-7a'])('flags %s', (text) => {
    expect(symbolInsideMaths(text)).toBeDefined();
  });

  it.each(['the angles measure 45 deg, 60 deg and x deg', 'a jacket is discounted by 25% and then taxed', 'what is 7*12?', 'what is x? 5 apples', "find f'(x) at x=2"])('leaves prose alone: %s', (text) => {
    expect(symbolInsideMaths(text)).toBeUndefined();
  });
});

describe('a raised question mark glued to a letter', () => {
  const unit = (mark: OcrBox): OcrWord => ({
    text: 'm/s?,',
    confidence: 88,
    line: 0,
    bbox: box(0, 95, 120, 140),
    symbols: [
      { text: 'm', bbox: box(0, 112, 38, 140) },
      { text: '/', bbox: box(42, 95, 58, 144) },
      { text: 's', bbox: box(62, 112, 82, 140) },
      { text: '?', bbox: mark },
      { text: ',', bbox: box(105, 132, 110, 146) },
    ],
  });

  it('given "m/s?," whose ? is boxed raised (the ² of m/s² misread), then it is doubted', () => {
    expect(raisedQuestionMark(unit(box(86, 95, 100, 118)))).toBe(true);
  });

  it('given "km/h?" whose ? stands on the line (a question ending on a unit), then it is not', () => {
    expect(raisedQuestionMark(unit(box(86, 100, 100, 140)))).toBe(false);
    expect(raisedQuestionMark(word('9.8'))).toBe(false);
  });
});

describe('a times sign read as two letters', () => {
  it('given "6 xx 4+89" (6 × 4 + 89 on a cropped copy), then it is doubted; "6 x 4" and "3x+4" are not', () => {
    expect(garbledTimes('evaluate 6 xx 4+89')).toBe('6 xx 4');
    expect(garbledTimes('evaluate 6 x 4+89')).toBeUndefined();
    expect(garbledTimes('solve 3x+4=10')).toBeUndefined();
  });
});

describe('relations read wrong', () => {
  it('given an equation chained with an inequality ("x^2>-12x+22=0"), then it is doubted; a double inequality or <= is not', () => {
    expect(mixedRelations('roots of x^2>-12x+22=0 and check')).toBe('x^2>-12x+22=0');
    expect(mixedRelations('solve 0<x<5 and a<=b, x=2')).toBeUndefined();
  });

  it('given a word run into a relation ("from x=0 tox=5"), then it is doubted; "to x=5" is not', () => {
    expect(wordGluedToRelation('integral from x=0 tox=5')).toBe('tox=5');
    expect(wordGluedToRelation('integral from x=0 to x=5')).toBeUndefined();
  });
});

describe('a digit read as a letter', () => {
  it.each(['solve 3x+s=68', 'solve 4x-l=23', 'evaluate 2*o+7', 'solve 2x+6y=52 and x-sy=18'])('flags %s', (text) => {
    expect(digitReadAsLetter(text)).toBeDefined();
  });

  it.each(['solve 3x+5=68', 'solve 4y-9=23', 'a bag holds 5 red marbles'])('leaves %s alone', (text) => {
    expect(digitReadAsLetter(text)).toBeUndefined();
  });

  it('flags a percent or degree sign closing a sum (an exponent misread)', () => {
    expect(symbolInsideMaths('evaluate 22+6%')).toBeDefined();
    expect(symbolInsideMaths('a jacket is discounted by 25%')).toBeUndefined();
  });
});

describe('a false equation between numbers', () => {
  it('flags "2=17" but not a true one, nor an equation with an unknown', () => {
    expect(falseNumericEquation('sulye hy « 2=17')).toBe('2=17');
    expect(falseNumericEquation('check that 5=5')).toBeUndefined();
    expect(falseNumericEquation('solve 5y+2=17')).toBeUndefined();
    expect(falseNumericEquation('evaluate 2^10+3^5=1267')).toBeUndefined();
  });
});

describe('digits read from one place', () => {
  const at = (text: string, boxes: readonly (readonly [number, number])[]): OcrWord => ({
    text,
    confidence: 75,
    line: 0,
    bbox: box(boxes[0]?.[0] ?? 0, 100, boxes[boxes.length - 1]?.[1] ?? 0, 140),
    symbols: [...text].map((c, i) => ({ text: c, bbox: box(boxes[i]?.[0] ?? 0, 100, boxes[i]?.[1] ?? 0, 140) })),
  });

  it('flags a digit boxed over its neighbours ("89" read as "809")', () => {
    expect(crowdedDigits(at('=809.', [[690, 732], [751, 789], [778, 799], [799, 813], [797, 855]]))).toBe(true);
  });

  it('leaves digits that stand apart or barely touch alone, and non-digits', () => {
    expect(crowdedDigits(at('23', [[566, 603], [617, 654]]))).toBe(false);
    expect(crowdedDigits(at('12', [[327, 350], [348, 382]]))).toBe(false);
    expect(crowdedDigits(at('8.', [[546, 574], [560, 580]]))).toBe(false);
  });
});

describe('item labels', () => {
  const line = (...texts: string[]): OcrWord[] =>
    texts.map((text, i) => ({ text, confidence: 40, line: 0, bbox: { x0: i * 50, y0: 0, x1: i * 50 + 40, y1: 30 }, symbols: [] }));
  const labelled = (words: OcrWord[]): string[] => words.filter((w) => isItemLabel(w, words)).map((w) => w.text);

  it('knows the number of a numbered item or a labelled one, whole or cut at the left', () => {
    expect(labelled(line('12.', 'Solve', '3x', '+', '5', '=', '20.'))).toEqual(['12.']);
    expect(labelled(line('Problem', '9.'))).toEqual(['9.']);
    expect(labelled(line("'roblem", '9.'))).toEqual(['9.']);
  });

  it('takes no number of the maths for a label', () => {
    expect(labelled(line('3x', '+', '5', '=', '20.'))).toEqual([]);
    expect(labelled(line('20.'))).toEqual([]);
    expect(labelled(line('Solve', '3x', '=', '12.'))).toEqual([]);
  });
});
