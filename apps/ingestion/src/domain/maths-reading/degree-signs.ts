import type { OcrResult, OcrSymbol, OcrWord } from '../ocr-pool.js';
import { grayPage, inkUnderWord, withWords } from './operator-ink.js';
import type { InkComponent, LineInk } from './raised-ink.js';

/** What tesseract's eng model makes of a degree sign after a number: the sign, the ordinal º, a ring, a letter o, a zero. */
const DEGREE_LOOKALIKE = /^[°º˚⁰oO0]$/;

/**
 * The shape of a degree sign, relative to the line's full-size glyphs: a small ring (0.42–0.44 of the
 * digit height in the DejaVu faces, as wide as tall) hanging from the top of the line. A superscript 0 is
 * taller (0.53–0.59) and narrower (0.65–0.78 as wide as tall), an "o" or a 0 sits on the baseline, the top
 * ring of a % has the sign's slash under it: none of them is a degree sign.
 */
const DEGREE = {
  minSize: 0.3,
  maxSize: 0.5,
  /** Width between these shares of the height. */
  minAspect: 0.82,
  maxAspect: 1.25,
  /** Top no lower than this share of the line's glyph height under the line's top. */
  maxTopDrop: 0.15,
  /** A ring: at most this share of its box inked... */
  maxFill: 0.8,
} as const;

const heightOf = (c: InkComponent): number => c.box.y1 - c.box.y0 + 1;
const widthOf = (c: InkComponent): number => c.box.x1 - c.box.x0 + 1;

/** Whether a blob of the line is a degree sign by its shape and place (see `DEGREE`), with paper enclosed in it. */
export function isDegreeRing(ink: LineInk, ring: InkComponent, body: { readonly baseline: number; readonly height: number }): boolean {
  const h = heightOf(ring);
  const aspect = widthOf(ring) / h;
  const top = body.baseline - body.height + 1;
  if (h < DEGREE.minSize * body.height || h > DEGREE.maxSize * body.height) return false;
  if (aspect < DEGREE.minAspect || aspect > DEGREE.maxAspect || ring.box.y0 > top + DEGREE.maxTopDrop * body.height) return false;
  if (ring.area > DEGREE.maxFill * widthOf(ring) * h) return false;
  // Nothing printed under it (the slash and lower ring of a %, the stem of a letter).
  const under = ink.components.some((c) => c !== ring && c.box.y0 > ring.box.y1 && Math.min(c.box.x1, ring.box.x1) - Math.max(c.box.x0, ring.box.x0) >= 0);
  return !under && enclosesPaper(ink, ring);
}

/** Whether some paper inside a blob's box cannot reach the box's edge without crossing the blob (a ring's hole). */
function enclosesPaper(ink: LineInk, blob: InkComponent): boolean {
  const own = new Set(blob.labels);
  const regionWidth = ink.region.x1 - ink.region.x0 + 1;
  const { x0, y0, x1, y1 } = blob.box;
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const isInk = (x: number, y: number): boolean => own.has(ink.labels[(y0 + y - ink.region.y0) * regionWidth + (x0 + x - ink.region.x0)] ?? 0);
  const reached = new Uint8Array(w * h);
  const stack: number[] = [];
  for (let x = 0; x < w; x += 1) for (const y of [0, h - 1]) stack.push(y * w + x);
  for (let y = 0; y < h; y += 1) for (const x of [0, w - 1]) stack.push(y * w + x);
  while (stack.length > 0) {
    const at = stack.pop() ?? 0;
    const x = at % w;
    const y = Math.floor(at / w);
    if (reached[at] === 1 || isInk(x, y)) continue;
    reached[at] = 1;
    if (x > 0) stack.push(at - 1);
    if (x < w - 1) stack.push(at + 1);
    if (y > 0) stack.push(at - w);
    if (y < h - 1) stack.push(at + w);
  }
  for (let y = 1; y < h - 1; y += 1) for (let x = 1; x < w - 1; x += 1) if (reached[y * w + x] === 0 && !isInk(x, y)) return true;
  return false;
}

/**
 * Degree signs read from their ink: "26°," is a number and a unit, not a lost exponent, but tesseract
 * boxes the ° raised and small as it boxes a superscript (`lostExponent`), and reads it as °, º, o or 0 at
 * times. Two evidences must agree: the reading has a ring-like character right after a digit, and the ink
 * there is a degree sign's ring (`isDegreeRing`), one for each such character. The character becomes "°"
 * and is returned among `signs`, which the size and height checks then leave alone. Any other ink (a
 * superscript 0, a full-size 0, a % sign, two rings for one character) leaves the word as it was.
 */
export async function degreeSignsFromInk(page: Buffer, ocr: OcrResult): Promise<{ readonly ocr: OcrResult; readonly signs: ReadonlySet<OcrSymbol> }> {
  const words = ocr.words ?? [];
  const candidatesOf = (w: OcrWord): OcrSymbol[] => w.symbols.filter((s, i) => DEGREE_LOOKALIKE.test(s.text) && /^[0-9]$/.test(w.symbols[i - 1]?.text ?? ''));
  if (!words.some((w) => candidatesOf(w).length > 0)) return { ocr, signs: new Set() };
  const gray = await grayPage(page);
  const signs = new Set<OcrSymbol>();
  let changed = false;
  const out = words.map((w) => {
    const candidates = candidatesOf(w);
    if (candidates.length === 0) return w;
    const under = inkUnderWord(gray, words, w);
    if (under === undefined) return w;
    const rings = under.under.filter((c) => isDegreeRing(under.ink, c, under.body));
    if (rings.length === 0) return w;
    // Each ring to the candidate whose box holds its centre; a ring no candidate holds, or one shared, settles nothing.
    const matched = new Map<OcrSymbol, InkComponent>();
    for (const ring of rings) {
      const centre = (ring.box.x0 + ring.box.x1) / 2;
      const holders = candidates.filter((s) => centre >= s.bbox.x0 - 0.5 * (s.bbox.x1 - s.bbox.x0) && centre <= s.bbox.x1 + 0.5 * (s.bbox.x1 - s.bbox.x0));
      const holder = holders.length === 1 ? holders[0] : undefined;
      if (holder === undefined || matched.has(holder)) return w;
      matched.set(holder, ring);
    }
    const symbols = w.symbols.map((s) => {
      const ring = matched.get(s);
      if (ring === undefined) return s;
      const sign: OcrSymbol = { ...s, text: '°', bbox: ring.box };
      signs.add(sign);
      return sign;
    });
    changed = true;
    return { ...w, text: symbols.map((s) => s.text).join(''), symbols };
  });
  return { ocr: changed ? withWords(ocr, out) : ocr, signs };
}
