import type { OcrResult, OcrSymbol, OcrWord } from '../ocr-pool.js';
import { grayPage, inkUnderWord } from './operator-ink.js';
import type { InkComponent } from './raised-ink.js';

/** Letters tesseract makes of digits that lower case prints at x-height: s for 5, o for 0, z for 2 (capitals are checked too: the reading is compared lower-cased). */
const X_HEIGHT_LOOKALIKE = /^[sozSOZ]$/;

/**
 * Lower-case letters without ascenders stand on the baseline and reach the x-height (0.72–0.75 of the
 * digit height in the DejaVu faces); digits reach the line's top. A blob between these shares of the
 * line's glyph height, its top at least `minTopDrop` under the line's top and its bottom on the baseline,
 * is a letter's ink, not a digit's.
 */
const X_HEIGHT = { minSize: 0.55, maxSize: 0.85, minTopDrop: 0.15, baseline: 0.1 } as const;

export function atXHeight(c: InkComponent, body: { readonly baseline: number; readonly height: number }): boolean {
  const h = c.box.y1 - c.box.y0 + 1;
  const top = body.baseline - body.height + 1;
  return (
    h >= X_HEIGHT.minSize * body.height &&
    h <= X_HEIGHT.maxSize * body.height &&
    c.box.y0 >= top + X_HEIGHT.minTopDrop * body.height &&
    Math.abs(c.box.y1 - body.baseline) <= X_HEIGHT.baseline * body.height
  );
}

/** A letter standing alone in its word ("s" of "m/s", not of "is"): where a digit read as a letter would be. */
function loneAt(word: OcrWord, i: number): boolean {
  return ![word.symbols[i - 1], word.symbols[i + 1]].some((s) => s !== undefined && /^[A-Za-z]$/.test(s.text));
}

/**
 * The lone letters (`s`, `o`, `z`) of a reading that the ink shows printed as lower-case letters, at
 * x-height, every time they stand alone: "m/s" is metres per second, "x/s" with a full-height "s" is
 * "x/5" misread. Two evidences agree then: tesseract read a letter and the glyph under it has a letter's
 * height, not a digit's. A letter with any lone occurrence whose ink is not one blob at x-height (a
 * digit's height, no ink, two blobs) is not returned, so `digitReadAsLetter` still doubts it.
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
  const held = under.under.filter((c) => {
    const centre = (c.box.x0 + c.box.x1) / 2;
    return centre >= symbol.bbox.x0 && centre <= symbol.bbox.x1;
  });
  const glyph = held[0];
  return held.length === 1 && glyph !== undefined && atXHeight(glyph, under.body);
}
