import type { OcrBox, OcrResult, OcrSymbol, OcrWord } from '../ocr-pool.js';
import { grayPage, inkUnderWord } from './operator-ink.js';
import type { LineInk } from './raised-ink.js';

/** Letters tesseract makes of digits that lower case prints at x-height: s for 5, o for 0, z for 2 (capitals are checked too: the reading is compared lower-cased). */
const X_HEIGHT_LOOKALIKE = /^[sozSOZ]$/;

/**
 * Lower-case letters without ascenders stand on the baseline and reach the x-height (0.72–0.75 of the
 * digit height in the DejaVu faces); digits reach the line's top. Ink spanning between these shares of the
 * line's glyph height, its top at least `minTopDrop` under the line's top and its bottom on the baseline,
 * is a letter's ink, not a digit's.
 */
const X_HEIGHT = { minSize: 0.55, maxSize: 0.85, minTopDrop: 0.15, baseline: 0.1 } as const;

export function atXHeight(box: OcrBox, body: { readonly baseline: number; readonly height: number }): boolean {
  const h = box.y1 - box.y0 + 1;
  const top = body.baseline - body.height + 1;
  return (
    h >= X_HEIGHT.minSize * body.height &&
    h <= X_HEIGHT.maxSize * body.height &&
    box.y0 >= top + X_HEIGHT.minTopDrop * body.height &&
    Math.abs(box.y1 - body.baseline) <= X_HEIGHT.baseline * body.height
  );
}

/** A letter standing alone in its word ("s" of "m/s", not of "is"): where a digit read as a letter would be. */
function loneAt(word: OcrWord, i: number): boolean {
  return ![word.symbols[i - 1], word.symbols[i + 1]].some((s) => s !== undefined && /^[A-Za-z]$/.test(s.text));
}

/**
 * The lone letters (`s`, `o`, `z`) of a reading that the ink shows printed as lower-case letters, at
 * x-height, every time they stand alone: "m/s" is metres per second, "x/s" with a full-height "s" is
 * "x/5" misread. Two evidences agree then: tesseract read a letter and the ink in the middle of its box
 * spans a letter's height, not a digit's. A letter with any lone occurrence whose ink does not (a digit's
 * height, no ink) is not returned, so `digitReadAsLetter` still doubts it.
 */
export async function lettersAtXHeight(page: Buffer, ocr: OcrResult): Promise<ReadonlySet<string>> {
  const words = ocr.words ?? [];
  const lone = words.flatMap((w) => w.symbols.flatMap((s, i) => (X_HEIGHT_LOOKALIKE.test(s.text) && loneAt(w, i) ? [{ w, s }] : [])));
  if (lone.length === 0) return new Set();
  const gray = await grayPage(page);
  const confirmed = new Set<string>();
  const refuted = new Set<string>();
  for (const { w, s } of lone) (letterInk(gray, words, w, s) ? confirmed : refuted).add(s.text.toLowerCase());
  return new Set([...confirmed].filter((letter) => !refuted.has(letter)));
}

function letterInk(gray: Parameters<typeof inkUnderWord>[0], words: readonly OcrWord[], word: OcrWord, symbol: OcrSymbol): boolean {
  const under = inkUnderWord(gray, words, word);
  if (under === undefined) return false;
  // The middle half of the letter's columns: a neighbour touching it (the "²" of "s²" run into the s on a
  // clean print) reaches into its box's edges, not into its middle.
  const inset = Math.floor((symbol.bbox.x1 - symbol.bbox.x0) * COLUMN_TRIM);
  const rows = inkRows(under.ink, symbol.bbox.x0 + inset, symbol.bbox.x1 - inset);
  return rows !== undefined && atXHeight({ x0: symbol.bbox.x0, x1: symbol.bbox.x1, y0: rows.top, y1: rows.bottom }, under.body);
}

/** Share of a letter's box width left out on each side before its ink is measured (as `ink-boxes` does for digits). */
const COLUMN_TRIM = 0.25;

/** The first and last rows of the line's glyphs (not speckle, not the lines above and below) within columns x0..x1. */
function inkRows(ink: LineInk, x0: number, x1: number): { readonly top: number; readonly bottom: number } | undefined {
  const width = ink.region.x1 - ink.region.x0 + 1;
  const glyphs = new Set(ink.components.flatMap((c) => c.labels));
  let top = -1;
  let bottom = -1;
  for (let y = ink.region.y0; y <= ink.region.y1; y += 1) {
    for (let x = Math.max(x0, ink.region.x0); x <= Math.min(x1, ink.region.x1); x += 1) {
      if (glyphs.has(ink.labels[(y - ink.region.y0) * width + (x - ink.region.x0)] ?? 0)) {
        if (top < 0) top = y;
        bottom = y;
        break;
      }
    }
  }
  return top < 0 ? undefined : { top, bottom };
}
