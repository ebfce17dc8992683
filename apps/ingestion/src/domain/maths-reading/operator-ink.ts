import sharp from 'sharp';
import type { GrayImage } from '../gray-image.js';
import type { OcrResult, OcrWord } from '../ocr-pool.js';
import { lineBody } from './baseline-words.js';
import { type InkComponent, type LineInk, lineInk, union } from './raised-ink.js';

/** How far above and below a line's words its ink is looked for, in line heights (as exponent recovery looks). */
const BAND = { above: 0.5, below: 0.15 } as const;

/** The line's body (baseline and full glyph height) and the components of ink under one of its words. */
export interface InkUnderWord {
  readonly body: { readonly baseline: number; readonly height: number };
  readonly under: readonly InkComponent[];
  /** The whole line's ink, for shape measures that need the pixels (a ring's hole). */
  readonly ink: LineInk;
}

export async function grayPage(page: Buffer): Promise<GrayImage> {
  const { data, info } = await sharp(page).grayscale().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** The ink under a word (components overlapping its box), measured against its whole line's ink. */
export function inkUnderWord(page: GrayImage, words: readonly OcrWord[], word: OcrWord): InkUnderWord | undefined {
  const line = union(words.filter((o) => o.line === word.line).map((o) => o.bbox));
  const h = line.y1 - line.y0 + 1;
  const ink = lineInk(page, { x0: line.x0 - h, x1: line.x1 + h, y0: line.y0 - BAND.above * h, y1: line.y1 + BAND.below * h });
  const body = ink === undefined ? undefined : lineBody(ink.components);
  if (ink === undefined || body === undefined) return undefined;
  return { body, ink, under: ink.components.filter((c) => c.box.x1 >= word.bbox.x0 && c.box.x0 <= word.bbox.x1) };
}

/** The reading with its words replaced, its text rebuilt line by line from them. */
export function withWords(ocr: OcrResult, words: readonly OcrWord[]): OcrResult {
  const text = [...new Set(words.map((w) => w.line))].map((l) => words.filter((w) => w.line === l).map((w) => w.text).join(' ')).join('\n');
  return { ...ocr, text, words: [...words] };
}
