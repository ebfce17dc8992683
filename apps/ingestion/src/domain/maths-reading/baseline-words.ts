import sharp from 'sharp';
import type { GrayImage } from '../gray-image.js';
import type { OcrBox, OcrResult, OcrWord } from '../ocr-pool.js';
import { type InkComponent, type LineInk, lineInk, union } from './raised-ink.js';

/** A glyph whose bottom is this share of the line's glyph height above the baseline is lifted (an exponent, a sign at mid-height). */
const LIFTED = 0.25;
/** A glyph wider than tall by this much may be two run together (a digit and an exponent touching). */
const RUN_TOGETHER = 1;
/** How far above and below a line's words its ink is looked for, in line heights (as exponent recovery looks). */
const BAND = { above: 0.5, below: 0.15 } as const;

const heightOf = (b: OcrBox): number => b.y1 - b.y0 + 1;
const widthOf = (b: OcrBox): number => b.x1 - b.x0 + 1;

/** The baseline and glyph height of a line, from its full-size glyphs (within 0.8–1.1 of the 90th percentile height). */
export function lineBody(components: readonly InkComponent[]): { readonly baseline: number; readonly height: number } | undefined {
  const heights = components.map((c) => heightOf(c.box)).sort((a, b) => a - b);
  const p90 = heights[Math.floor(0.9 * (heights.length - 1))];
  if (p90 === undefined) return undefined;
  const tall = components.filter((c) => heightOf(c.box) >= 0.8 * p90 && heightOf(c.box) <= 1.1 * p90);
  const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  return { baseline: median(tall.map((c) => c.box.y1)), height: median(tall.map((c) => heightOf(c.box))) };
}

/**
 * Whether the ink under a word shows it printed on the line: one full-size glyph for each of its digits,
 * none lifted off the baseline, none as wide as two glyphs run together. Tesseract's LSTM boxes a
 * character where it decoded it, not on its ink: the second 7 of "77." boxed half over the first shows
 * only its top bar in the middle of its box, which reads as a raised digit (`lostExponent`). The
 * connected components are the ink itself, so when they show nothing raised, that doubt is unfounded.
 */
export function sitsOnBaseline(ink: LineInk, word: OcrWord): boolean {
  const body = lineBody(ink.components);
  if (body === undefined) return false;
  const under = ink.components.filter((c) => (c.box.x0 + c.box.x1) / 2 >= word.bbox.x0 && (c.box.x0 + c.box.x1) / 2 <= word.bbox.x1);
  const fullSize = under.filter((c) => heightOf(c.box) >= 0.5 * body.height);
  const digits = word.symbols.filter((s) => /^[0-9]$/.test(s.text)).length;
  return (
    digits > 0 &&
    fullSize.length >= digits &&
    under.every((c) => c.box.y1 > body.baseline - LIFTED * body.height) &&
    fullSize.every((c) => widthOf(c.box) <= RUN_TOGETHER * heightOf(c.box))
  );
}

/** The words of a reading whose digits the ink shows printed on their line (see `sitsOnBaseline`). */
export async function wordsOnBaseline(page: Buffer, ocr: OcrResult): Promise<ReadonlySet<OcrWord>> {
  const words = ocr.words ?? [];
  const withDigits = words.filter((w) => /[0-9]/.test(w.text));
  if (withDigits.length === 0) return new Set();
  const { data, info } = await sharp(page).grayscale().raw().toBuffer({ resolveWithObject: true });
  const gray: GrayImage = { width: info.width, height: info.height, data };
  const on = new Set<OcrWord>();
  const inks = new Map<number, LineInk | undefined>();
  for (const w of withDigits) {
    if (!inks.has(w.line)) {
      const box = union(words.filter((o) => o.line === w.line).map((o) => o.bbox));
      const h = box.y1 - box.y0 + 1;
      inks.set(w.line, lineInk(gray, { x0: box.x0 - h, x1: box.x1 + h, y0: box.y0 - BAND.above * h, y1: box.y1 + BAND.below * h }));
    }
    const ink = inks.get(w.line);
    if (ink !== undefined && sitsOnBaseline(ink, w)) on.add(w);
  }
  return on;
}
