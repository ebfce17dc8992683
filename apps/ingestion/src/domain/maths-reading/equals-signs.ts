import type { GrayImage } from '../gray-image.js';
import type { OcrBox, OcrResult, OcrWord } from '../ocr-pool.js';
import { grayPage, inkUnderWord, withWords } from './operator-ink.js';
import type { InkComponent } from './raised-ink.js';

/** An "=" read with less confidence than this (0..100) is checked against its ink. */
const UNSURE = 85;
/**
 * The confidence (0..100) of an "=" whose ink is two solid bars of one length, one over the other at
 * mid-height, and nothing else: no other sign of school maths is printed so (`−` is one bar, `≠` is
 * crossed by a stroke that joins its bars, `≡` has three, `÷` dots, `+` a stem).
 */
const TWO_BARS = 90;

type Body = { readonly baseline: number; readonly height: number };

const widthOf = (b: OcrBox): number => b.x1 - b.x0 + 1;
const heightOf = (b: OcrBox): number => b.y1 - b.y0 + 1;
const middleOf = (b: OcrBox): number => (b.y0 + b.y1) / 2;

/** A bar of an operator: twice as wide as tall, thin, filling its box, as wide as a glyph (not a rule), inside the line's body. */
function isBar(c: InkComponent, body: Body): boolean {
  const w = widthOf(c.box);
  const h = heightOf(c.box);
  const middle = middleOf(c.box);
  return (
    w >= 2 * h &&
    h <= 0.2 * body.height &&
    c.area >= 0.75 * w * h &&
    w >= 0.3 * body.height &&
    w <= 1.5 * body.height &&
    middle <= body.baseline - 0.1 * body.height &&
    middle >= body.baseline - 0.8 * body.height
  );
}

/**
 * Whether two blobs are an equals sign's bars: both bars (`isBar`), of one length (within a fifth) and
 * lined up (overlapping over four fifths of it), one over the other with a gap of paper under 0.4 of
 * the glyph height, their pair centred at the line's mid-height.
 */
export function isEqualsBars(a: InkComponent, b: InkComponent, body: Body): boolean {
  const [top, bottom] = a.box.y0 <= b.box.y0 ? [a, b] : [b, a];
  const wt = widthOf(top.box);
  const wb = widthOf(bottom.box);
  const longer = Math.max(wt, wb);
  const overlap = Math.min(top.box.x1, bottom.box.x1) - Math.max(top.box.x0, bottom.box.x0) + 1;
  const gap = bottom.box.y0 - top.box.y1 - 1;
  const middle = (top.box.y0 + bottom.box.y1) / 2;
  return (
    isBar(top, body) &&
    isBar(bottom, body) &&
    Math.abs(wt - wb) <= 0.2 * longer &&
    overlap >= 0.8 * longer &&
    gap >= 1 &&
    gap <= 0.4 * body.height &&
    middle <= body.baseline - 0.2 * body.height &&
    middle >= body.baseline - 0.7 * body.height
  );
}

/**
 * Equals signs read from their ink, as `minusSignsFromInk` reads minus signs: tesseract at times scores
 * a plain "=" under the reading's bar on a degraded copy (0.59 on one). An "=" read unsure whose ink is
 * exactly two equal parallel bars at the line's mid-height (`isEqualsBars`) takes the confidence of that
 * shape (`TWO_BARS`). Any other ink under it (one bar, a stroke across, a third bar, bars of different
 * lengths) leaves the word as it was, for the bar to judge.
 */
export async function equalsSignsFromInk(page: Buffer, ocr: OcrResult): Promise<OcrResult> {
  const words = ocr.words ?? [];
  const unsure = (w: OcrWord): boolean => w.text === '=' && w.confidence < UNSURE;
  if (!words.some(unsure)) return ocr;
  const gray = await grayPage(page);
  let changed = false;
  const out = words.map((w) => {
    if (!unsure(w) || !twoBarsUnder(gray, words, w)) return w;
    changed = true;
    return { ...w, confidence: TWO_BARS, symbols: w.symbols.map((s) => ({ ...s, confidence: Math.max(s.confidence ?? 0, TWO_BARS) })) };
  });
  return changed ? withWords(ocr, out) : ocr;
}

function twoBarsUnder(page: GrayImage, words: readonly OcrWord[], word: OcrWord): boolean {
  const ink = inkUnderWord(page, words, word);
  const [a, b] = ink?.under ?? [];
  return ink?.under.length === 2 && a !== undefined && b !== undefined && isEqualsBars(a, b, ink.body);
}
