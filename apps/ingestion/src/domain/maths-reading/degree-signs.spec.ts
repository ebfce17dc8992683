import { box, rectanglesPng } from '../test-support/glyph-pages.js';
import type { OcrBox, OcrResult, OcrWord } from '../ocr-pool.js';
import { TesseractOcrPool } from '../ocr-pool.js';
import { prepareOcrInput } from '../ocr-input.js';
import { normaliseImage } from '../image-normalisation.js';
import { renderTextImage } from '../test-support/render-text.js';
import { degreeSignsFromInk } from './degree-signs.js';
import { judgeReading } from './read-maths.js';
import { lostExponent } from './token-checks.js';

/** A rectangle's outline, `thickness` px wide: a ring with paper inside. */
const ring = (b: OcrBox, thickness = 3): OcrBox[] => [
  box(b.x0, b.y0, b.x1, b.y0 + thickness - 1),
  box(b.x0, b.y1 - thickness + 1, b.x1, b.y1),
  box(b.x0, b.y0, b.x0 + thickness - 1, b.y1),
  box(b.x1 - thickness + 1, b.y0, b.x1, b.y1),
];

/** "26°," as tesseract boxes it: the sign raised and small, like a superscript; `sign` is what it read there. */
function reading(sign: string): OcrResult {
  const symbols = [
    { text: '2', bbox: box(40, 61, 64, 100) },
    { text: '6', bbox: box(70, 61, 94, 100) },
    { text: sign, bbox: box(99, 61, 116, 78) },
    { text: ',', bbox: box(122, 94, 127, 106) },
  ];
  const word: OcrWord = { text: symbols.map((s) => s.text).join(''), confidence: 91, line: 0, bbox: box(40, 61, 127, 106), symbols };
  return { text: word.text, confidence: 91, words: [word] };
}

/** The 2, the 6 and the comma; a glyph 6 px after the 6, as the faces print a degree sign, stays a glyph of its own. */
const DIGITS = [box(40, 61, 64, 100), box(70, 61, 94, 100), box(122, 94, 127, 104)];

describe('degree signs told from exponents by their ink', () => {
  it('given "26°," boxed raised, when the ink there is a small round ring at the top of the line, then it is a unit, not a lost exponent', async () => {
    for (const sign of ['°', 'o', 'º', '0']) {
      const read = reading(sign);
      const judged = await degreeSignsFromInk(await rectanglesPng([...DIGITS, ...ring(box(101, 61, 117, 77))]), read);
      const word = judged.ocr.words?.[0];
      expect(word?.text).toBe('26°,');
      expect(judged.signs.size).toBe(1);
      // Without the ink's evidence the raised sign is doubted as an exponent; with it, it is not.
      if (word !== undefined) {
        expect(lostExponent(word, [word])).toBe(true);
        expect(lostExponent(word, [word], judged.signs)).toBe(false);
      }
    }
  });

  it('given a raised glyph that is not a degree sign (a superscript 0, a filled dot, a ring with a stroke under it), then the doubt stands', async () => {
    const superscriptZero = ring(box(101, 61, 114, 84));
    const filled = [box(101, 61, 117, 77)];
    const percentTop = [...ring(box(101, 61, 117, 77)), box(106, 82, 110, 100)];
    for (const ink of [superscriptZero, filled, percentTop]) {
      const read = reading('0');
      const judged = await degreeSignsFromInk(await rectanglesPng([...DIGITS, ...ink]), read);
      expect(judged.signs.size).toBe(0);
      expect(judged.ocr).toBe(read);
      const doubts = judgeReading(judged.ocr, 'first', 0, { degreeSigns: judged.signs }).doubts;
      expect(doubts).toContain('"260,": raised digits read as plain digits (a lost exponent)');
    }
  });

  it('given a ring no character after a digit was read over, then nothing is rewritten', async () => {
    const read = reading('′');
    const judged = await degreeSignsFromInk(await rectanglesPng([...DIGITS, ...ring(box(101, 61, 117, 77))]), read);
    expect(judged).toEqual({ ocr: read, signs: new Set() });
  });
});

describe('degree signs on a rendered page, read by tesseract', () => {
  const pool = new TesseractOcrPool({ size: 1 });
  afterAll(() => pool.shutdown());

  it('given printed angles "26°, 31° and x°", when read and judged, then the reading has no doubt about exponents', async () => {
    for (const font of ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Mono']) {
      const png = await renderTextImage(['The angles measure 26°, 31° and x°.'], { font });
      const input = await prepareOcrInput(await normaliseImage(png), 0);
      const judged = await degreeSignsFromInk(input, await pool.recognise(input));
      const doubts = judgeReading(judged.ocr, 'first', 0, { degreeSigns: judged.signs }).doubts;
      expect(doubts).toEqual([]);
      expect(judged.ocr.text).toContain('26°');
    }
  });
});
