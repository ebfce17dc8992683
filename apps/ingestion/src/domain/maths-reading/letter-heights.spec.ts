import { box, rectanglesPng } from '../test-support/glyph-pages.js';
import type { OcrResult, OcrWord } from '../ocr-pool.js';
import { lettersAtXHeight } from './letter-heights.js';
import { digitReadAsLetter } from './token-checks.js';


/** "12 m/s" as read: the digits, then "m", "/" and a lone letter `letter` over the glyph at x 150–170. */
function reading(letter: string): OcrResult {
  const number: OcrWord = { text: '12', confidence: 95, line: 0, bbox: box(40, 61, 94, 100), symbols: [{ text: '1', bbox: box(40, 61, 64, 100) }, { text: '2', bbox: box(70, 61, 94, 100) }] };
  const symbols = [
    { text: 'm', bbox: box(110, 72, 135, 100) },
    { text: '/', bbox: box(138, 58, 146, 104) },
    { text: letter, bbox: box(150, 72, 170, 100) },
  ];
  const unit: OcrWord = { text: symbols.map((s) => s.text).join(''), confidence: 93, line: 0, bbox: box(110, 58, 170, 104), symbols };
  return { text: `12 ${unit.text}`, confidence: 94, words: [number, unit] };
}

const INK = [box(40, 61, 64, 100), box(70, 61, 94, 100), box(110, 72, 135, 100), box(139, 58, 145, 104)];

describe('lone letters told from digits by their height', () => {
  it('given "12 m/s" whose s stands at x-height, then s is a letter and "/s" is not doubted as "/5"', async () => {
    const letters = await lettersAtXHeight(await rectanglesPng([...INK, box(151, 72, 169, 100)]), reading('s'));
    expect(letters).toEqual(new Set(['s']));
    expect(digitReadAsLetter('12 m/s', letters)).toBeUndefined();
    expect(digitReadAsLetter('12 m/s')).toBe('/s');
  });

  it('given the s of "m/s²" with the exponent run into its right edge (one blob), then the middle of the s still stands at x-height', async () => {
    const letters = await lettersAtXHeight(await rectanglesPng([...INK, box(151, 72, 169, 100), box(170, 61, 182, 80)]), reading('s'));
    expect(letters).toEqual(new Set(['s']));
  });

  it('given the glyph under the s as tall as a digit (a 5 read as s), then the doubt stands', async () => {
    const letters = await lettersAtXHeight(await rectanglesPng([...INK, box(151, 61, 169, 100)]), reading('s'));
    expect(letters).toEqual(new Set());
    expect(digitReadAsLetter('12 m/s', letters)).toBe('/s');
  });

  it('doubts every other lone letter, and a letter exempted keeps no other lone letter from being doubted', () => {
    expect(digitReadAsLetter('12 m/s and x/o', new Set(['s']))).toBe('/o');
  });
});
