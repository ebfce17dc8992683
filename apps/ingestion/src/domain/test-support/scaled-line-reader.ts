import type { OcrChar, OcrReader } from '@openpaw/providers/ocr';
import sharp from 'sharp';
import type { NormalisedImage } from '../image-normalisation.js';

/** How a fake reader reads the page at one width: the line's text and each character's reading. */
export interface ScaledLine {
  readonly text: string;
  readonly char?: (i: number) => Omit<OcrChar, 'text' | 'box'>;
}

/**
 * A reader (for the specs) that records the widths of the pages it was given and reads one line of
 * `lineHeight` px, characters 12 px apart, on a page 200 px wide, scaled with the page it is given:
 * `line(width)` says what it reads at that width (every character 0.999 unless `char` says otherwise).
 */
export function scaledLineReader(lineHeight: number, line: (width: number) => ScaledLine): OcrReader & { readonly widths: number[] } {
  const widths: number[] = [];
  return {
    reader: 'test',
    local: true,
    widths,
    async read(image) {
      const { width = 0 } = await sharp(image).metadata();
      widths.push(width);
      const scale = width / 200;
      const { text, char } = line(width);
      const chars = [...text].map((c, i) => ({ text: c, confidence: 0.999, ...char?.(i), box: { x0: 12 * i * scale, y0: 10 * scale, x1: (12 * i + 10) * scale, y1: (10 + lineHeight) * scale } }));
      const box = { x0: 0, y0: 10 * scale, x1: 200 * scale, y1: (10 + lineHeight) * scale };
      return { reader: 'test', local: true, width, height: 60 * scale, lines: [{ text, confidence: Math.min(...chars.map((c) => c.confidence)), box, chars }] };
    },
    close: () => Promise.resolve(),
  };
}

/** A blank page `width` × `height` as normalisation gives it. */
export async function blankPage(width = 200, height = 60): Promise<NormalisedImage> {
  const rgb = Buffer.alloc(width * height * 3, 255);
  return { sourceType: 'png', width, height, rgb, png: await sharp(rgb, { raw: { width, height, channels: 3 } }).png().toBuffer() };
}
