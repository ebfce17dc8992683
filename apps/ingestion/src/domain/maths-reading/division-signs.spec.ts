import { box, rectanglesPage } from '../test-support/glyph-pages.js';
import type { OcrBox } from '../ocr-pool.js';
import { TesseractOcrPool } from '../ocr-pool.js';
import { prepareOcrInput } from '../ocr-input.js';
import { normaliseImage } from '../image-normalisation.js';
import { renderTextImage } from '../test-support/render-text.js';
import { divisionSignsFromInk, isDivisionSign } from './division-signs.js';
import { lineInk } from './raised-ink.js';


/** The ink of a page with dark rectangles standing for glyphs: digits 40 px tall on a baseline at y = 100. */
function ink(glyphs: readonly OcrBox[]) {
  const page = rectanglesPage(glyphs);
  const line = lineInk(page, box(0, 0, page.width - 1, page.height - 1));
  if (line === undefined) throw new Error('no ink');
  return { line, sign: line.components.filter((c) => c.box.x0 >= 100) };
}

const DIGIT = box(40, 61, 64, 100);

describe('division signs told by their ink', () => {
  it('given a bar with a dot above and a dot below it, then it is a division sign', () => {
    const { line, sign } = ink([DIGIT, box(100, 79, 136, 82), box(115, 68, 120, 73), box(115, 88, 120, 93)]);
    expect(isDivisionSign(line, sign)).toBe(true);
  });

  it('given a plus, an equals sign, a minus, or a bar with both dots above it, then it is not', () => {
    const plus = [box(100, 79, 136, 82), box(116, 63, 119, 98)];
    const equals = [box(100, 74, 136, 77), box(100, 86, 136, 89)];
    const minus = [box(100, 79, 136, 82)];
    const dotsAbove = [box(100, 79, 136, 82), box(105, 68, 110, 73), box(125, 68, 130, 73)];
    for (const glyphs of [plus, equals, minus, dotsAbove]) {
      const { line, sign } = ink([DIGIT, ...glyphs]);
      expect(isDivisionSign(line, sign)).toBe(false);
    }
  });
});

describe('division signs on a rendered page, read by tesseract', () => {
  const pool = new TesseractOcrPool({ size: 1 });
  afterAll(() => pool.shutdown());

  it('given "(3/4) × (5/6) ÷ 7" printed, when the eng model reads the ÷ as something else, then the ink makes it ÷ again', async () => {
    for (const font of ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Mono']) {
      const png = await renderTextImage(['Simplify (3/4) × (5/6) ÷ 7 and write'], { font });
      const input = await prepareOcrInput(await normaliseImage(png), 0);
      const read = await pool.recognise(input);
      expect(read.text).not.toContain('÷');
      expect((await divisionSignsFromInk(input, read)).text).toMatch(/\) ÷ 7 and/);
    }
  });
});
