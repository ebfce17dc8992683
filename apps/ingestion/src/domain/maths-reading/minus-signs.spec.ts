import { box, rectanglesPng } from '../test-support/glyph-pages.js';
import type { OcrBox, OcrResult, OcrWord } from '../ocr-pool.js';
import { judgeReading } from './read-maths.js';
import { dashesOverDots, minusSignsFromInk } from './minus-signs.js';


const word = (text: string, bbox: OcrBox, confidence: number): OcrWord => ({ text, confidence, line: 0, bbox, symbols: [...text].map((c) => ({ text: c, bbox })) });

/** "8 —- 25" as tesseract reads a monospaced "8 − 25": the minus as an em dash and a hyphen, unsure. */
function reading(dashes: string, confidence: number): OcrResult {
  const words = [word('8', box(40, 61, 64, 100), 95), word(dashes, box(100, 70, 140, 90), confidence), word('25', box(170, 61, 220, 100), 95)];
  return { text: words.map((w) => w.text).join(' '), confidence: 80, words };
}

const DIGITS = [box(40, 61, 64, 100), box(170, 61, 193, 100), box(198, 61, 220, 100)];

describe('minus signs read from their ink', () => {
  it('makes one minus of an unsure word of dashes over one solid bar at mid-height', async () => {
    const read = await minusSignsFromInk(await rectanglesPng([...DIGITS, box(100, 78, 140, 83)]), reading('—-', 43));
    expect(read.text).toBe('8 - 25');
    expect(read.words?.[1]).toMatchObject({ text: '-', confidence: 90 });
  });

  it('given an "=" read unsure (a monospaced minus read at 0 %) over one solid bar at mid-height, then it is read as a minus', async () => {
    const read = await minusSignsFromInk(await rectanglesPng([...DIGITS, box(100, 78, 140, 83)]), reading('=', 0));
    expect(read.text).toBe('8 - 25');
    expect(read.words?.[1]).toMatchObject({ text: '-', confidence: 90 });
  });

  it('given an unsure "=" over two bars, a bar on the baseline or a bar crossed by a stem, then it stays "=" (for the equals check and the bar to judge); a sure "=" is never re-read', async () => {
    const unsure = reading('=', 40);
    for (const ink of [[box(100, 72, 140, 75), box(100, 84, 140, 87)], [box(100, 95, 140, 100)], [box(100, 78, 140, 83), box(118, 66, 122, 95)]]) {
      expect(await minusSignsFromInk(await rectanglesPng([...DIGITS, ...ink]), unsure)).toBe(unsure);
    }
    const sure = reading('=', 93);
    expect(await minusSignsFromInk(await rectanglesPng([...DIGITS, box(100, 78, 140, 83)]), sure)).toBe(sure);
  });

  it('leaves two bars (an equals sign), a bar on the baseline, an outline, and a minus read with confidence', async () => {
    const unsure = reading('—-', 43);
    const outline = [box(100, 76, 140, 76), box(100, 83, 140, 83), box(100, 76, 100, 83), box(140, 76, 140, 83)];
    for (const ink of [[box(100, 72, 140, 75), box(100, 84, 140, 87)], [box(100, 95, 140, 100)], outline]) {
      expect(await minusSignsFromInk(await rectanglesPng([...DIGITS, ...ink]), unsure)).toBe(unsure);
    }
    const sure = reading('-', 93);
    expect(await minusSignsFromInk(await rectanglesPng([...DIGITS, box(100, 78, 140, 83)]), sure)).toBe(sure);
  });
});

describe('a dot read as a dash', () => {
  it('given "8 - 25" read sure over a dot at mid-height (the · of a product), then the reading is doubted rather than read as a difference', async () => {
    const sure = reading('-', 89);
    const dots = await dashesOverDots(await rectanglesPng([...DIGITS, box(117, 77, 122, 82)]), sure);
    expect([...dots].map((w) => w.text)).toEqual(['-']);
    expect(judgeReading(sure, 'first', 0, { dashesOverDots: dots }).doubts).toContain('"-": a dot read as a dash (a product read as a difference?)');
  });

  it('given a real minus bar under the dash, then nothing is doubted', async () => {
    expect(await dashesOverDots(await rectanglesPng([...DIGITS, box(100, 78, 140, 83)]), reading('-', 89))).toEqual(new Set());
  });
});
