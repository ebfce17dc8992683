import type { OcrBox, OcrResult, OcrWord } from '../ocr-pool.js';
import { grayPage, inkUnderWord, withWords } from './operator-ink.js';
import type { InkComponent, LineInk } from './raised-ink.js';

/** What tesseract's eng model, which has no "÷", reads in its place: a plus, at times a dash. */
const DIVISION_LOOKALIKE = /^[+\-—–−÷]$/;
/** The confidence (0..100) of a division sign whose ink is a bar with a dot above and a dot below: nothing else is printed so. */
const BAR_AND_TWO_DOTS = 90;

const widthOf = (b: OcrBox): number => b.x1 - b.x0 + 1;
const heightOf = (b: OcrBox): number => b.y1 - b.y0 + 1;

/** The boxes of the blobs a component was joined from (a "÷" is joined from its bar and its two dots). */
function blobBoxes(ink: LineInk, component: InkComponent): OcrBox[] {
  const width = ink.region.x1 - ink.region.x0 + 1;
  const boxes = new Map<number, { x0: number; y0: number; x1: number; y1: number }>();
  for (let y = component.box.y0; y <= component.box.y1; y += 1) {
    for (let x = component.box.x0; x <= component.box.x1; x += 1) {
      const label = ink.labels[(y - ink.region.y0) * width + (x - ink.region.x0)] ?? 0;
      if (!component.labels.includes(label)) continue;
      const b = boxes.get(label);
      if (b === undefined) boxes.set(label, { x0: x, y0: y, x1: x, y1: y });
      else Object.assign(b, { x0: Math.min(b.x0, x), y0: Math.min(b.y0, y), x1: Math.max(b.x1, x), y1: Math.max(b.y1, y) });
    }
  }
  return [...boxes.values()];
}

/**
 * Whether the ink is a division sign: exactly three blobs, a bar at least twice as wide as tall and two
 * dots (each at most as tall as the bar is wide, none as wide as the bar), one wholly above the bar and
 * one wholly below it, both within its span. A plus is one blob, an equals sign two bars, a minus one bar.
 */
export function isDivisionSign(ink: LineInk, components: readonly InkComponent[]): boolean {
  const blobs = components.flatMap((c) => blobBoxes(ink, c));
  if (blobs.length !== 3) return false;
  const bar = blobs.reduce((widest, b) => (widthOf(b) > widthOf(widest) ? b : widest));
  if (widthOf(bar) < 2 * heightOf(bar)) return false;
  const dots = blobs.filter((b) => b !== bar);
  const within = (b: OcrBox): boolean => b.x0 >= bar.x0 - 1 && b.x1 <= bar.x1 + 1 && widthOf(b) < 0.6 * widthOf(bar);
  return dots.every(within) && dots.some((d) => d.y1 < bar.y0) && dots.some((d) => d.y0 > bar.y1);
}

/**
 * Division signs read from their ink: the eng model has no "÷" and reads "(3/4) × (5/6) ÷ 7" with a plus
 * for it, confidently, which would solve a sum for a quotient. A word read as a plus or a dash whose ink
 * is a bar between two dots (`isDivisionSign`) is "÷" with the confidence of that shape; any other ink
 * leaves the word as it was.
 */
export async function divisionSignsFromInk(page: Buffer, ocr: OcrResult): Promise<OcrResult> {
  const words = ocr.words ?? [];
  if (!words.some((w) => DIVISION_LOOKALIKE.test(w.text))) return ocr;
  const gray = await grayPage(page);
  let changed = false;
  const out = words.map((w): OcrWord => {
    if (!DIVISION_LOOKALIKE.test(w.text)) return w;
    const under = inkUnderWord(gray, words, w);
    if (under === undefined || under.under.length === 0 || !isDivisionSign(under.ink, under.under)) return w;
    changed = true;
    const box = under.under.map((c) => c.box).reduce((a, b) => ({ x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) }));
    return { ...w, text: '÷', confidence: Math.max(w.confidence, BAR_AND_TWO_DOTS), symbols: [{ text: '÷', bbox: box, confidence: BAR_AND_TWO_DOTS }] };
  });
  return changed ? withWords(ocr, out) : ocr;
}
