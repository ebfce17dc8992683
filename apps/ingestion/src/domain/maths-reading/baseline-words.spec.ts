import type { GrayImage } from '../gray-image.js';
import type { OcrBox, OcrWord } from '../ocr-pool.js';
import { sitsOnBaseline } from './baseline-words.js';
import { lineInk } from './raised-ink.js';
import { lostExponent } from './token-checks.js';

const WIDTH = 300;
const HEIGHT = 120;
const box = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });

/** A page with dark rectangles standing for glyphs' ink (digits 40 px tall on a baseline at y = 90). */
function ink(glyphs: readonly OcrBox[]) {
  const data = new Uint8Array(WIDTH * HEIGHT).fill(255);
  for (const g of glyphs) for (let y = g.y0; y <= g.y1; y += 1) for (let x = g.x0; x <= g.x1; x += 1) data[y * WIDTH + x] = 20;
  const page: GrayImage = { width: WIDTH, height: HEIGHT, data };
  const line = lineInk(page, box(0, 0, WIDTH - 1, HEIGHT - 1));
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
