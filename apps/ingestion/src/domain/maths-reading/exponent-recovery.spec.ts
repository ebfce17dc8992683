import type { OcrBox, OcrSymbol, OcrWord } from '../ocr-pool.js';
import { TesseractOcrPool } from '../ocr-pool.js';
import { renderPowersLine } from '../test-support/render-text.js';
import { EXPONENT_SCALE, recoverExponents, SECOND_EXPONENT_SCALE, spliceExponent } from './exponent-recovery.js';
import type { InkComponent, RaisedGroup } from './raised-ink.js';

const box = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });
const glyph = (b: OcrBox): InkComponent => ({ box: b, area: 100, labels: [1] });
const symbol = (text: string, b: OcrBox, confidence = 99): OcrSymbol => ({ text, bbox: b, confidence });
const word = (symbols: OcrSymbol[], confidence: number, line = 0): OcrWord => ({
  text: symbols.map((s) => s.text).join(''),
  confidence,
  line,
  bbox: { x0: Math.min(...symbols.map((s) => s.bbox.x0)), y0: 100, x1: Math.max(...symbols.map((s) => s.bbox.x1)), y1: 150 },
  symbols,
});

/** "3³." as tesseract boxed it: the exponent read as a degree sign boxed half over the 3, the full stop boxed over both. */
const BASE = box(433, 110, 453, 147);
const CUBE: RaisedGroup = { base: glyph(BASE), box: box(461, 102, 473, 126), components: [glyph(box(461, 102, 473, 126))] };
const threeCubed = (base = '3'): OcrWord[] => [
  word([symbol('+', box(380, 116, 409, 148))], 96),
  word([symbol(base, box(432, 109, 455, 149)), symbol('°', box(447, 102, 467, 149), 40), symbol('.', box(460, 102, 487, 148))], 41),
];

describe('splicing a read exponent into the words', () => {
  it('puts ^digits after the character read over the base, in place of what stood in for the exponent', () => {
    const spliced = spliceExponent(threeCubed(), 0, { group: CUBE, digits: '3', confidence: 95 });
    expect(spliced?.map((w) => w.text)).toEqual(['+', '3^3.']);
    // The word's score was the misread exponent's; it is now its characters' and the exponent's.
    expect(spliced?.[1]?.confidence).toBe(95);
    expect(spliced?.[1]?.symbols.map((s) => s.bbox)).toContainEqual(box(461, 102, 473, 126));
  });

  it('drops a line tesseract made of the exponent alone', () => {
    const words = [word([symbol('3', box(462, 100, 472, 125))], 80, 0), ...threeCubed().map((w) => ({ ...w, line: 1 }))];
    expect(spliceExponent(words, 1, { group: CUBE, digits: '3', confidence: 95 })?.map((w) => w.text)).toEqual(['+', '3^3.']);
  });

  it('places no exponent on a letter that stands in for a digit, or on an operator', () => {
    expect(spliceExponent(threeCubed('g'), 0, { group: CUBE, digits: '3', confidence: 95 })).toBeUndefined();
    expect(spliceExponent(threeCubed('+'), 0, { group: CUBE, digits: '3', confidence: 95 })).toBeUndefined();
  });

  it('given a letter that stands in for a digit, when its ink stands at x-height (the s of "m/s²"), then it carries the exponent', () => {
    expect(spliceExponent(threeCubed('s'), 0, { group: CUBE, digits: '2', confidence: 95 })).toBeUndefined();
    expect(spliceExponent(threeCubed('s'), 0, { group: CUBE, digits: '2', confidence: 95 }, true)?.map((w) => w.text)).toEqual(['+', 's^2.']);
    // An operator stays unable to carry one, whatever its height.
    expect(spliceExponent(threeCubed('+'), 0, { group: CUBE, digits: '3', confidence: 95 }, true)).toBeUndefined();
  });
});

describe('recovering exponents from the page', () => {
  const pool = new TesseractOcrPool({ size: 1 });
  afterAll(() => pool.shutdown());

  it('reads the raised digits that the eng model cannot, and leaves a line without them as it was, degrees included', async () => {
    for (const font of ['DejaVu Sans', 'DejaVu Serif']) {
      const page = await renderPowersLine('Evaluate 6^10 + 7^4.', { font });
      const read = await pool.recognise(page);
      // At either scale: the second is how exponents the two passes read differently are read again.
      for (const scale of [EXPONENT_SCALE, SECOND_EXPONENT_SCALE]) {
        const { ocr, recovered } = await recoverExponents(page, read, pool, scale);
        expect(recovered).toBe(2);
        expect(ocr.text.replace(/\s+/g, '')).toBe('Evaluate6^10+7^4.');
      }
    }
    // A line whose only maths is an unknown squared, its exponent read as "?": no digit on the line, still searched.
    for (const font of ['DejaVu Sans', 'DejaVu Sans Mono']) {
      const page = await renderPowersLine('Find all real roots of x^2 and', { font });
      const { ocr, recovered } = await recoverExponents(page, await pool.recognise(page), pool);
      expect({ text: ocr.text, recovered }).toEqual({ text: 'Find all real roots of x^2 and', recovered: 1 });
    }
    // Nothing raised, and raised signs that are not digits (degrees: as wide as tall): the reading is left as it was.
    for (const line of ['Solve 5n + 32 = 77.', 'Angles of 45° and 60°: find x.']) {
      const plain = await renderPowersLine(line);
      const first = await pool.recognise(plain);
      expect(await recoverExponents(plain, first, pool)).toEqual({ ocr: first, recovered: 0 });
    }
  });
});
