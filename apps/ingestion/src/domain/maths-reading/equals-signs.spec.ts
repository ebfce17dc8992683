import { box, rectanglesPng } from '../test-support/glyph-pages.js';
import type { OcrBox, OcrResult, OcrWord } from '../ocr-pool.js';
import { equalsSignsFromInk } from './equals-signs.js';


const word = (text: string, bbox: OcrBox, confidence: number): OcrWord => ({ text, confidence, line: 0, bbox, symbols: [...text].map((c) => ({ text: c, bbox, confidence })) });

/** "2x = 14" as tesseract reads a degraded copy: the "=" right but scored under the reading's bar. */
function reading(confidence: number): OcrResult {
  const words = [word('2x', box(40, 61, 90, 100), 95), word('=', box(110, 68, 145, 92), confidence), word('14', box(170, 61, 220, 100), 95)];
  return { text: words.map((w) => w.text).join(' '), confidence: 80, words };
}

const GLYPHS = [box(40, 61, 63, 100), box(68, 72, 90, 100), box(170, 61, 193, 100), box(198, 61, 220, 100)];
const EQUALS = [box(112, 70, 143, 74), box(112, 84, 143, 88)];

describe('equals signs read from their ink', () => {
  it('trusts an unsure "=" whose ink is two equal parallel bars at mid-height', async () => {
    const read = await equalsSignsFromInk(await rectanglesPng([...GLYPHS, ...EQUALS]), reading(59));
    expect(read.text).toBe('2x = 14');
    expect(read.words?.[1]).toMatchObject({ text: '=', confidence: 90 });
    expect(read.words?.[1]?.symbols[0]?.confidence).toBe(90);
  });

  it('leaves one bar, bars of different lengths, bars far apart, three bars, bars crossed by a stroke, bars on the baseline, and a sure "="', async () => {
    const unsure = reading(59);
    const inks = [
      [box(112, 77, 143, 81)],
      [box(112, 70, 143, 74), box(112, 84, 128, 88)],
      [box(112, 62, 143, 66), box(112, 92, 143, 96)],
      [box(112, 66, 143, 69), box(112, 76, 143, 79), box(112, 86, 143, 89)],
      [...EQUALS, box(126, 64, 129, 94)],
      [box(112, 88, 143, 91), box(112, 96, 143, 99)],
    ];
    for (const ink of inks) expect(await equalsSignsFromInk(await rectanglesPng([...GLYPHS, ...ink]), unsure)).toBe(unsure);
    const sure = reading(93);
    expect(await equalsSignsFromInk(await rectanglesPng([...GLYPHS, ...EQUALS]), sure)).toBe(sure);
  });
});
