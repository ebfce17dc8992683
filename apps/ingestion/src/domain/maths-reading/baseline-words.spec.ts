import { box, rectanglesPage } from '../test-support/glyph-pages.js';
import type { OcrBox, OcrWord } from '../ocr-pool.js';
import { sitsOnBaseline } from './baseline-words.js';
import { lineInk } from './raised-ink.js';
import { lostExponent } from './token-checks.js';


/** A page with dark rectangles standing for glyphs' ink (digits 40 px tall on a baseline at y = 90). */
function ink(glyphs: readonly OcrBox[]) {
  const page = rectanglesPage(glyphs, 120);
  const line = lineInk(page, box(0, 0, page.width - 1, page.height - 1));
  if (line === undefined) throw new Error('no ink');
  return line;
}

/** "77." as tesseract boxes it at times: the second 7 boxed half over the first, short, its top bar only. */
const word77: OcrWord = {
  text: '77.',
  confidence: 95,
  line: 0,
  bbox: box(20, 51, 110, 90),
  symbols: [
    { text: '7', bbox: box(20, 51, 46, 90) },
    { text: '7', bbox: box(43, 51, 67, 60) },
    { text: '.', bbox: box(54, 51, 110, 90) },
  ],
};

describe('words whose ink sits on the baseline', () => {
  it('clears a word whose boxes look raised when its ink shows one full-size glyph per digit on the line', () => {
    expect(lostExponent(word77, [word77])).toBe(true);
    const printed = ink([box(10, 51, 14, 90), box(22, 51, 44, 90), box(52, 51, 74, 90), box(80, 84, 85, 90)]);
    expect(sitsOnBaseline(printed, word77)).toBe(true);
  });

  it('does not clear a word with a raised glyph under it, nor one whose digits ran together', () => {
    const raised = ink([box(10, 51, 14, 90), box(22, 51, 44, 90), box(52, 36, 68, 62), box(80, 84, 85, 90)]);
    expect(sitsOnBaseline(raised, word77)).toBe(false);
    // "7⁴" with the exponent touching the 7: one blob as wide as two glyphs.
    const touching = ink([box(10, 51, 14, 90), box(22, 51, 44, 90), box(45, 36, 68, 62), box(80, 84, 85, 90)]);
    expect(sitsOnBaseline(touching, word77)).toBe(false);
  });
});
