import type { GrayImage } from '../gray-image.js';
import type { OcrBox, OcrWord } from '../ocr-pool.js';
import { inkWord } from './ink-boxes.js';
import { lostExponent, unevenDigits } from './token-checks.js';

const WIDTH = 200;
const HEIGHT = 80;

/** A white page with dark rectangles standing for glyphs' ink; `background` lets a darkened photo be drawn. */
function page(glyphs: readonly OcrBox[], background = 255, ink = 20): GrayImage {
  const data = new Uint8Array(WIDTH * HEIGHT).fill(background);
  for (const g of glyphs) for (let y = g.y0; y <= g.y1; y += 1) for (let x = g.x0; x <= g.x1; x += 1) data[y * WIDTH + x] = ink;
  return { width: WIDTH, height: HEIGHT, data };
}

const box = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });

/** "74" as tesseract reports it: both digits boxed on one baseline, whatever the ink says. */
function word74(): OcrWord {
  return { text: '74', confidence: 92, line: 0, bbox: box(20, 20, 80, 62), symbols: [{ text: '7', bbox: box(20, 20, 46, 62) }, { text: '4', bbox: box(52, 20, 80, 62) }] };
}

describe('digits judged by their ink', () => {
  it('finds the raised, smaller exponent that tesseract boxed on the baseline ("7⁴" read as "74")', () => {
    const raised = page([box(24, 21, 42, 61), box(56, 21, 76, 44)]);
    const before = word74();
    expect(lostExponent(before, [before])).toBe(false);
    expect(unevenDigits(before)).toBe(false);
    const after = inkWord(raised, before);
    expect(after.symbols[1]?.bbox).toEqual(box(52, 21, 80, 44));
    expect(lostExponent(after, [after])).toBe(true);
    expect(unevenDigits(after)).toBe(true);
  });

  it('leaves digits printed at one size alone, on a darkened photo as on a clean page', () => {
    for (const [background, ink] of [[255, 20], [150, 12]] as const) {
      const even = inkWord(page([box(24, 21, 42, 61), box(56, 22, 76, 61)], background, ink), word74());
      expect(lostExponent(even, [even])).toBe(false);
      expect(unevenDigits(even)).toBe(false);
    }
  });

  it("does not count a neighbour's antialiased edge reaching into the box (a full stop after the exponent)", () => {
    const withStop = page([box(24, 21, 42, 61), box(56, 21, 72, 44), box(75, 56, 79, 61)]);
    const data = withStop.data as Uint8Array;
    for (let y = 56; y <= 61; y += 1) data[y * WIDTH + 73] = 130;
    expect(inkWord(withStop, word74()).symbols[1]?.bbox).toEqual(box(52, 21, 80, 44));
  });

  it('keeps the boxes of a word over a flat region (nothing to measure) and of non-digits', () => {
    const blank = page([]);
    expect(inkWord(blank, word74())).toEqual(word74());
    const sum: OcrWord = { text: '+', confidence: 90, line: 0, bbox: box(20, 20, 40, 40), symbols: [{ text: '+', bbox: box(20, 20, 40, 40) }] };
    expect(inkWord(page([box(22, 25, 38, 35)]), sum)).toBe(sum);
  });
});
