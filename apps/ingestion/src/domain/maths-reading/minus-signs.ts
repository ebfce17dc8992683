import type { GrayImage } from '../gray-image.js';
import type { OcrResult, OcrWord } from '../ocr-pool.js';
import { grayPage, inkUnderWord, withWords } from './operator-ink.js';
import type { InkComponent } from './raised-ink.js';

/** A word of dashes read with less confidence than this (0..100) is checked against its ink. */
const UNSURE = 85;
/**
 * The confidence (0..100) of a minus sign whose ink is one solid bar at mid-height: nothing else in
 * school maths is printed so (`=` is two bars, `+` has a stem, `÷` dots, `~` does not fill its box).
 */
const SOLID_BAR = 90;

const DASHES = /^[-—–−‐]+$/;
/**
 * What tesseract's eng model reads a monospaced "−" as besides dashes: "=" at 0–51 % (DejaVu Sans Mono
 * "(x² − 7)"). An "=" is two bars; one bar alone under it is a minus, so an unsure "=" is checked too.
 */
const EQUALS = '=';

/** Whether a blob is a minus sign's bar: twice as wide as tall, thin, filling its box, at the line's mid-height. */
export function isMinusBar(bar: InkComponent, body: { readonly baseline: number; readonly height: number }): boolean {
  const w = bar.box.x1 - bar.box.x0 + 1;
  const h = bar.box.y1 - bar.box.y0 + 1;
  const middle = (bar.box.y0 + bar.box.y1) / 2;
  return w >= 2 * h && h <= 0.2 * body.height && bar.area >= 0.75 * w * h && middle <= body.baseline - 0.2 * body.height && middle >= body.baseline - 0.7 * body.height;
}

/**
 * Minus signs read from their ink: tesseract's eng model reads a monospaced "−" as "—-" (a doubt: one
 * sign read as two) or as "-" with a score under the bar, and cannot read a bar cropped alone at all.
 * A word of dashes read unsure whose ink is exactly one solid bar at the line's mid-height is a minus
 * (`isMinusBar`): it becomes "-" with the confidence of that shape (`SOLID_BAR`). So does an "=" read
 * unsure over exactly one such bar (an equals sign's two bars are never one thin bar). Any other ink
 * under it (two bars, a stem, nothing) leaves the word as it was.
 */
export async function minusSignsFromInk(page: Buffer, ocr: OcrResult): Promise<OcrResult> {
  const words = ocr.words ?? [];
  const unsure = (w: OcrWord): boolean => (DASHES.test(w.text) || w.text === EQUALS) && w.confidence < UNSURE;
  if (!words.some(unsure)) return ocr;
  const gray = await grayPage(page);
  let changed = false;
  const out = words.map((w) => {
    const bar = unsure(w) ? solidBarUnder(gray, words, w) : undefined;
    if (bar === undefined) return w;
    changed = true;
    return { ...w, text: '-', confidence: Math.max(w.confidence, SOLID_BAR), symbols: [{ text: '-', bbox: bar.box, confidence: SOLID_BAR }] };
  });
  return changed ? withWords(ocr, out) : ocr;
}

function solidBarUnder(page: GrayImage, words: readonly OcrWord[], word: OcrWord): InkComponent | undefined {
  const ink = inkUnderWord(page, words, word);
  const bar = ink?.under[0];
  return ink?.under.length === 1 && bar !== undefined && isMinusBar(bar, ink.body) ? bar : undefined;
}

/** Whether a blob is a dot at the line's mid-height, the "·" of a product: small, about as wide as tall. */
export function isMidDot(dot: InkComponent, body: { readonly baseline: number; readonly height: number }): boolean {
  const w = dot.box.x1 - dot.box.x0 + 1;
  const h = dot.box.y1 - dot.box.y0 + 1;
  const middle = (dot.box.y0 + dot.box.y1) / 2;
  return w <= 1.5 * h && h <= 1.5 * w && h <= 0.3 * body.height && middle <= body.baseline - 0.2 * body.height && middle >= body.baseline - 0.7 * body.height;
}

/**
 * Dashes read over a dot: tesseract's eng model reads the "·" of "(7a³b²)² · 7a⁻¹b" as "-" with 89 %
 * confidence, which would turn a product into a difference. A minus is a bar twice as wide as tall or
 * more; a word of dashes (however sure) whose ink is one dot at mid-height (`isMidDot`) is returned, so
 * the reading is doubted rather than read with the wrong operator.
 */
export async function dashesOverDots(page: Buffer, ocr: OcrResult): Promise<ReadonlySet<OcrWord>> {
  const words = ocr.words ?? [];
  const dashes = words.filter((w) => DASHES.test(w.text));
  if (dashes.length === 0) return new Set();
  const gray = await grayPage(page);
  return new Set(
    dashes.filter((w) => {
      const ink = inkUnderWord(gray, words, w);
      const dot = ink?.under[0];
      return ink?.under.length === 1 && dot !== undefined && isMidDot(dot, ink.body);
    }),
  );
}
