import type { OcrBox, OcrChar, OcrLine } from '@openpaw/providers/ocr';
import { lineGeometry, stackedInk } from './line-geometry.js';

/** A character 20 px wide at column `i`, its ink from `top` to `bottom` (the line's baseline is at 50, its characters 40 px tall). */
function char(text: string, i: number, top = 10, bottom = 50, ownInk = true): OcrChar {
  return { text, confidence: 0.999, box: { x0: 22 * i, y0: top, x1: 22 * i + 20, y1: bottom }, ownInk };
}

function line(chars: readonly OcrChar[]): OcrLine {
  const box: OcrBox = { x0: 0, y0: 0, x1: 22 * chars.length, y1: 70 };
  return { text: chars.map((c) => c.text).join(''), confidence: 0.999, box, chars };
}

describe('lineGeometry', () => {
  it('writes a raised, smaller digit after a letter as its exponent', () => {
    const read = lineGeometry(line([char('S', 0), char('o', 1, 20), char('l', 2), char('v', 3, 20), char('e', 4, 20), char(' ', 5), char('9', 6), char('n', 7, 20), char('3', 8, 0, 28)]));
    expect(read).toMatchObject({ text: 'Solve 9n^3', doubts: [] });
  });

  it('refuses a raised letter or an oversized raised digit the line cannot place as an exponent, and a digit set below the line', () => {
    const raisedLetter = lineGeometry(line([char('S', 0), char('o', 1, 20), char('l', 2), char('v', 3, 20), char('e', 4, 20), char(' ', 5), char('2', 6), char('x', 7, 20), char('n', 8, 0, 20)]));
    expect(raisedLetter.doubts).toEqual([expect.stringMatching(/"n" is printed above the line/)]);
    const index = lineGeometry(line([char('S', 0), char('o', 1, 20), char('l', 2), char('v', 3, 20), char('e', 4, 20), char(' ', 5), char('x', 6, 20), char('1', 7, 35, 68), char('=', 8, 25, 40), char('4', 9)]));
    expect(index.doubts).toEqual(expect.arrayContaining([expect.stringMatching(/"1" is printed below the line/)]));
  });

  it('pools a raised digit\'s spellings ("2" and "²"): its ink says it is an exponent either way; a digit on the line keeps them apart', () => {
    const unsure = (c: OcrChar, confidence: number, alternatives: OcrChar['alternatives']): OcrChar => ({ ...c, confidence, alternatives });
    const start = [char('S', 0), char('o', 1, 20), char('l', 2), char('v', 3, 20), char('e', 4, 20), char(' ', 5)];
    const raisedTwo = lineGeometry(line([...start, char('t', 6, 12), unsure(char('2', 7, 0, 28), 0.47, [{ text: '²', confidence: 0.45 }, { text: '3', confidence: 0.03 }])]));
    expect(raisedTwo.text).toBe('Solve t^2');
    expect(raisedTwo.chars.at(-1)).toMatchObject({ text: '2', alternatives: [{ text: '3', confidence: 0.03 }] });
    expect(raisedTwo.chars.at(-1)!.confidence).toBeCloseTo(0.92);
    const superscript = lineGeometry(line([...start, char('t', 6, 12), unsure(char('²', 7, 0, 28), 0.52, [{ text: '2', confidence: 0.46 }])]));
    expect(superscript.chars.at(-1)).toMatchObject({ text: '²', alternatives: [] });
    expect(superscript.chars.at(-1)!.confidence).toBeCloseTo(0.98);
    // The same "²" with its ink on the baseline: where it sits is the reader's word only, so "2" stays other maths.
    const onTheLine = lineGeometry(line([...start, char('t', 6, 12), unsure(char('²', 7), 0.52, [{ text: '2', confidence: 0.46 }])]));
    expect(onTheLine.chars.at(-1)).toMatchObject({ text: '²', confidence: 0.52, alternatives: [{ text: '2', confidence: 0.46 }] });
  });

  it('judges the baseline only from characters with ink of their own: a box the reader placed by columns says nothing of where a glyph sits', () => {
    // "f" was found no ink of its own (its box is the whole line's rows); without care its bottom (70)
    // would pull the baseline down and make the coefficient "9" look raised.
    const read = lineGeometry(line([char('i', 0), char('f', 1, 0, 70, false), char('y', 2, 20, 62), char(':', 3, 20), char(' ', 4), char('9', 5), char('n', 6, 20), char('3', 7, 0, 28)]));
    expect(read).toMatchObject({ text: 'ify: 9n^3', doubts: [] });
  });

  it('judges the baseline only from boxes of one glyph: touching glyphs ("fy", one blob) each take the blob, descender and all', () => {
    // DejaVu Serif's "fy" of "Simplify" is one blob: its "f" ends at the "y"'s descender (62), which as a
    // baseline would put the coefficient "2" 12 px above the line.
    const fy: OcrBox = { x0: 22 * 6, y0: 10, x1: 22 * 7 + 20, y1: 62 };
    const prompt = [...'Simpli'].map((t, i) => char(t, i, /[Sl]/.test(t) ? 10 : 20)).concat([{ ...char('f', 6), box: fy }, { ...char('y', 7), box: fy }, char(':', 8, 20), char(' ', 9)]);
    const read = lineGeometry(line([...prompt, char('2', 10), char('x', 11, 20), char('4', 12, 0, 28), char(' ', 13), char('+', 14, 20, 40), char(' ', 15), char('4', 16), char('x', 17, 20), char('4', 18, 0, 28)]));
    expect(read).toMatchObject({ text: 'Simplify: 2x^4 + 4x^4', doubts: [] });
    // A "2" whose ink does end above the line beside the same blob is still doubted.
    const lifted = lineGeometry(line([...prompt, char('2', 10, 0, 38), char('x', 11, 20), char(' ', 12), char('+', 13, 20, 40), char(' ', 14), char('4', 15), char('x', 16, 20)]));
    expect(lifted.doubts).toEqual([expect.stringMatching(/"2" is printed above the line/)]);
  });

  it('doubts a character whose own ink stands tall, not one whose box the reader placed by its columns (a faint minus in a shrunk copy)', () => {
    const start = [char('4', 0), char('x', 1, 20), char(' ', 2)];
    const faintMinus = lineGeometry(line([...start, char('-', 3, 0, 70, false), char(' ', 4), char('7', 5)]));
    expect(faintMinus).toMatchObject({ text: '4x - 7', doubts: [] });
    const tallInk = lineGeometry(line([...start, char('-', 3, 0, 70), char(' ', 4), char('7', 5)]));
    expect(tallInk.doubts).toEqual([expect.stringMatching(/"-" stands 1.8 characters tall/)]);
  });

  it('reads an "x" set apart by spaces between two numbers as the times sign, its lift aside; an "x" touching a digit stays the ink\'s call', () => {
    // "42 x 14" with the x's ink on the baseline (KaTeX's × ends barely above it): a letter there would be an unknown followed by a number.
    const spaced = lineGeometry(line([char('4', 0), char('2', 1), char(' ', 2), char('x', 3, 20), char(' ', 4), char('1', 5), char('4', 6)]));
    expect(spaced.text).toBe('42 × 14');
    const coefficient = lineGeometry(line([char('4', 0), char('2', 1), char('x', 2, 20), char(' ', 3), char('+', 4, 20, 40), char(' ', 5), char('1', 6)]));
    expect(coefficient.text).toBe('42x + 1');
    const flattened = lineGeometry(line([char('4', 0), char(' ', 1), char('x', 2, 20), char('2', 3)]));
    expect(flattened.text).toBe('4 x2');
  });
});

describe('stackedInk', () => {
  const box = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });

  it('finds a stacked fraction: glyphs above and below a bar, set apart from it (KaTeX\'s 1/6 at 20 px)', () => {
    expect(stackedInk([box(248, 39, 254, 51), box(247, 54, 255, 55), box(247, 57, 254, 69)], 15)).toEqual(box(247, 39, 254, 69));
  });

  it('reads an upright stroke broken where a bar crosses it as one glyph (a 21 px "+" whose 1 px upright fell under the ink cut)', () => {
    expect(stackedInk([box(162, 28, 163, 34), box(154, 35, 171, 38), box(162, 39, 163, 44)], 15)).toBeUndefined();
  });

  it('still finds a stack whose pieces are wider than the bar is thick, or set apart from it, or with no bar across', () => {
    // A narrow "1 over 1" touching a 1 px bar: glyphs 3 px wide, not strokes.
    expect(stackedInk([box(100, 10, 103, 20), box(98, 21, 106, 22), box(100, 23, 103, 33)], 15)).toBeDefined();
    // Strokes as thin as the bar, but 2 px of paper between them and it.
    expect(stackedInk([box(162, 28, 163, 33), box(154, 35, 171, 38), box(162, 40, 163, 46)], 15)).toBeDefined();
    // Nothing across between them.
    expect(stackedInk([box(162, 28, 163, 34), box(162, 39, 163, 44)], 15)).toBeDefined();
  });
});
