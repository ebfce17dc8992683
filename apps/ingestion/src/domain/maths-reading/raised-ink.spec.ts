import type { GrayImage } from '../gray-image.js';
import type { OcrBox } from '../ocr-pool.js';
import { lineInk, raisedGroups } from './raised-ink.js';

const WIDTH = 400;
const HEIGHT = 120;
const box = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });
const BAND = box(0, 0, WIDTH - 1, HEIGHT - 1);

/** A page with dark rectangles standing for glyphs' ink (digits 40 px tall on a baseline at y = 90). */
function page(glyphs: readonly OcrBox[], background = 255, ink = 20): GrayImage {
  const data = new Uint8Array(WIDTH * HEIGHT).fill(background);
  for (const g of glyphs) for (let y = g.y0; y <= g.y1; y += 1) for (let x = g.x0; x <= g.x1; x += 1) data[y * WIDTH + x] = ink;
  return { width: WIDTH, height: HEIGHT, data };
}

/** "6¹⁰ + 7⁴.": full-size 6 and 7, exponents 26 px tall lifted 16 px, a plus at mid-height, a full stop. */
const SUM_OF_POWERS = [
  box(20, 51, 44, 90), // 6
  box(50, 36, 58, 62), // superscript 1
  box(64, 36, 80, 62), // superscript 0
  box(100, 62, 130, 84), // +
  box(150, 51, 174, 90), // 7
  box(180, 36, 196, 62), // superscript 4
  box(202, 84, 207, 90), // .
];

const groupsOf = (image: GrayImage): OcrBox[][] => {
  const ink = lineInk(image, BAND);
  if (ink === undefined) throw new Error('no ink');
  return raisedGroups(ink).map((g) => g.components.map((c) => c.box));
};

describe('raised ink: exponents found by their shape', () => {
  it('finds each run of raised, smaller glyphs after a full-size one, on a clean page and a darkened one', () => {
    for (const [background, ink] of [[255, 20], [150, 12]] as const) {
      expect(groupsOf(page(SUM_OF_POWERS, background, ink))).toEqual([[box(50, 36, 58, 62), box(64, 36, 80, 62)], [box(180, 36, 196, 62)]]);
    }
  });

  it('takes the operator, the full stop and the two bars of "=" for what they are', () => {
    const equation = [box(20, 51, 44, 90), box(60, 62, 84, 66), box(60, 74, 84, 78), box(100, 51, 124, 90), box(130, 84, 135, 90)];
    expect(groupsOf(page(equation))).toEqual([]);
  });

  it('is not fooled by the dot of an i, a degree sign or a quote', () => {
    const dotOverStem = [box(20, 51, 44, 90), box(50, 62, 56, 90), box(50, 50, 56, 56)];
    const degree = [box(20, 51, 44, 90), box(50, 40, 70, 60)];
    const quote = [box(20, 51, 44, 90), box(50, 51, 54, 64)];
    for (const glyphs of [dotOverStem, degree, quote]) expect(groupsOf(page(glyphs))).toEqual([]);
  });

  it('leaves an exponent it cannot read whole: a raised sign before it, a raised letter in it, ink under it', () => {
    const negative = [box(20, 51, 44, 90), box(50, 48, 58, 50), box(62, 36, 78, 62)];
    const withLetter = [box(20, 51, 44, 90), box(50, 36, 64, 62), box(68, 42, 90, 62)];
    const stacked = [box(20, 51, 44, 90), box(50, 36, 64, 62), box(50, 70, 64, 90)];
    for (const glyphs of [negative, withLetter, stacked]) expect(groupsOf(page(glyphs))).toEqual([]);
  });

  it('given a % broken apart on a JPEG copy (its top ring clear of its slash, the slash under the columns of the ring), then the ring is no exponent', () => {
    // The slash: a diagonal 4 px wide from (93, 47) down to (57, 92), clear of the ring but under its columns.
    const slash = Array.from({ length: 46 }, (_v, i) => box(Math.round(93 - i * 0.8), 47 + i, Math.round(93 - i * 0.8) + 3, 47 + i));
    const percent = [box(20, 51, 44, 90), box(50, 50, 63, 75), ...slash];
    expect(groupsOf(page(percent))).toEqual([]);
    // The same ring standing clear, with the next glyph after it, is one.
    expect(groupsOf(page([box(20, 51, 44, 90), box(50, 40, 60, 66), box(70, 51, 94, 90)]))).toEqual([[box(50, 40, 60, 66)]]);
  });

  it('joins the fragments of a thin stroke broken by a small print into one glyph', () => {
    // A superscript 4 whose diagonal came out lighter than the cut: its stem and its crossbar's end, 1 px apart.
    const broken = [box(20, 51, 44, 90), box(50, 44, 54, 52), box(56, 36, 64, 62), box(80, 51, 104, 90)];
    expect(groupsOf(page(broken))).toEqual([[box(50, 36, 64, 62)]]);
  });

  it('has nothing to say about a flat band', () => {
    expect(lineInk(page([]), BAND)).toBeUndefined();
  });
});
