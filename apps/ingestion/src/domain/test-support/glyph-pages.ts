import sharp from 'sharp';
import type { GrayImage } from '../gray-image.js';
import type { OcrBox, OcrResult, OcrWord } from '../ocr-pool.js';

export const box = (x0: number, y0: number, x1: number, y1: number): OcrBox => ({ x0, y0, x1, y1 });

/** A white page (300 × 160 unless told) with dark rectangles standing for glyphs' ink. */
export function rectanglesPage(glyphs: readonly OcrBox[], height = 160, width = 300): GrayImage {
  const data = new Uint8Array(width * height).fill(255);
  for (const g of glyphs) for (let y = g.y0; y <= g.y1; y += 1) for (let x = g.x0; x <= g.x1; x += 1) data[y * width + x] = 20;
  return { width, height, data };
}

/** The same page as a PNG, as an image ingestion is given. */
export function rectanglesPng(glyphs: readonly OcrBox[]): Promise<Buffer> {
  const page = rectanglesPage(glyphs);
  return sharp(page.data, { raw: { width: page.width, height: page.height, channels: 1 } }).png().toBuffer();
}

/** An OCR result whose words sit on one line, each character's box 18 px wide on the same baseline. */
export function oneLineReading(words: readonly (readonly [string, number])[]): OcrResult {
  const at = (x: number): OcrBox => box(x, 100, x + 18, 140);
  let x = 0;
  const list: OcrWord[] = words.map(([text, confidence]) => {
    const symbols = [...text].map((c) => ({ text: c, bbox: at((x += 20)) }));
    x += 20;
    return { text, confidence, line: 0, bbox: { x0: symbols[0]?.bbox.x0 ?? 0, y0: 100, x1: x, y1: 140 }, symbols };
  });
  return { text: words.map(([t]) => t).join(' '), confidence: 80, words: list };
}
