import type { OcrBox, OcrChar, OcrLine } from '@openpaw/providers/ocr';
import { GLYPH_HEIGHT } from './line-geometry.js';

/**
 * Square roots placed from the ink (issue 25). A line reader reads "√64 − 20" as "V64 - 20" or
 * "√64 - 20": it cannot say how far the root's bar reaches ("√36+31" may be √(36+31)). The page's ink
 * can. A radical sign is one connected stroke: the tick at its left and the bar over its radicand, so
 * its blob is at least a character tall and its columns hold the radicand's glyphs, which sit under the
 * bar and end on the sign's own foot. The radicand is what the line reader read in those columns; the
 * sign is what it read before them, and must be read as a root sign (√, or "V"/"v" as PP-OCRv4 reads it).
 * Anything else that encloses glyphs (a frame, a big bracket, a sign read as a digit) is not placed,
 * and stays a doubt: a reading that could be other maths is refused.
 */
export interface PlacedRoots {
  /** The lines with each placed root written "√(radicand)". */
  readonly lines: readonly OcrLine[];
  /** The radical signs' blobs that were placed: ink the reading now accounts for. */
  readonly roots: readonly OcrBox[];
  /** The "√" characters written from the ink (their bars' reach is known). */
  readonly placed: ReadonlySet<OcrChar>;
}

/** What a line reader reads a radical sign as. */
const ROOT_SIGN = /^[√Vv✓]$/u;
/** A radical's blob is at least this many character heights tall (its tick descends to the baseline, its bar rises above the digits). */
const RADICAL_HEIGHT = 0.9;
/** The radicand's glyphs end on the sign's foot: their bottoms lie within this many character heights of the blob's bottom. */
const FOOT = 0.35;
/** ... and the bar lies over them, its top at most this many character heights above their tops. */
const BAR_GAP = 0.6;
/** A read character straddles the bar's end when at least this share of its width lies on either side. */
const STRADDLE = 0.3;

const height = (b: OcrBox): number => b.y1 - b.y0;
const width = (b: OcrBox): number => b.x1 - b.x0;
const centre = (b: OcrBox): number => (b.x0 + b.x1) / 2;

/** The radical blobs of the page: tall blobs whose columns hold glyphs under a bar and standing on the blob's foot. */
function radicals(ink: readonly OcrBox[], charHeight: number): { sign: OcrBox; radicand: OcrBox }[] {
  const glyphs = ink.filter((b) => height(b) >= GLYPH_HEIGHT * charHeight);
  return glyphs.flatMap((outer) => {
    if (height(outer) < RADICAL_HEIGHT * charHeight) return [];
    const inner = glyphs.filter((g) => g !== outer && g.x0 >= outer.x0 && g.x1 <= outer.x1 && g.y0 < outer.y1 && g.y1 > outer.y0 && width(g) < width(outer));
    if (inner.length === 0) return [];
    const radicand = { x0: Math.min(...inner.map((g) => g.x0)), y0: Math.min(...inner.map((g) => g.y0)), x1: Math.max(...inner.map((g) => g.x1)), y1: Math.max(...inner.map((g) => g.y1)) };
    const underBar = radicand.y0 > outer.y0 && radicand.y0 - outer.y0 <= BAR_GAP * charHeight;
    const onFoot = Math.abs(outer.y1 - radicand.y1) <= FOOT * charHeight;
    return underBar && onFoot && radicand.x0 > outer.x0 ? [{ sign: outer, radicand }] : [];
  });
}

/** Whether the character was read as a root sign, or read as nothing with a root sign its likeliest other reading. */
const readAsRoot = (c: OcrChar): boolean => ROOT_SIGN.test(c.text) || (c.text === '' && ROOT_SIGN.test(c.alternatives?.[0]?.text ?? ''));

/** Places each radical whose sign and radicand the line reader read cleanly; every other line and radical is left as it was. */
export function placeRoots(lines: readonly OcrLine[], ink: readonly OcrBox[], charHeight: number): PlacedRoots {
  const roots: OcrBox[] = [];
  const placed = new Set<OcrChar>();
  let out = [...lines];
  for (const { sign, radicand } of radicals(ink, charHeight)) {
    const at = out.findIndex((l) => l.box.y0 < sign.y1 && l.box.y1 > sign.y0 && l.box.x0 < sign.x1 && l.box.x1 > sign.x0);
    const line = out[at];
    if (line === undefined) continue;
    const written = placeRoot(line, sign, radicand);
    if (written === undefined) continue;
    out = out.map((l, i) => (i === at ? written.line : l));
    roots.push(sign);
    placed.add(written.root);
  }
  return { lines: out, roots, placed };
}

function placeRoot(line: OcrLine, sign: OcrBox, radicand: OcrBox): { line: OcrLine; root: OcrChar } | undefined {
  const inked = (c: OcrChar): c is OcrChar & { box: OcrBox } => c.box !== undefined;
  if (!line.chars.every((c) => inked(c) || c.text.trim() === '')) return undefined;
  const inSign = (c: OcrChar): boolean => inked(c) && centre(c.box) >= sign.x0 && centre(c.box) < radicand.x0;
  const underBar = (c: OcrChar): boolean => inked(c) && centre(c.box) >= radicand.x0 && centre(c.box) < sign.x1;
  const signChars = line.chars.filter((c) => inSign(c) && (c.text.trim() !== '' || c.text === ''));
  const readSigns = signChars.filter((c) => c.text !== '' || readAsRoot(c));
  // The sign read once, as a root sign: "7" or "/" there is another reading of the page.
  if (readSigns.length !== 1 || !readAsRoot(readSigns[0]!) || signChars.some((c) => c.text.trim() !== '' && !readAsRoot(c))) return undefined;
  const under = line.chars.filter(underBar);
  if (!under.some((c) => c.text.trim() !== '')) return undefined;
  // A character half under the bar and half past its end: where the radicand ends is not clear.
  const straddles = line.chars.some((c) => inked(c) && c.text.trim() !== '' && !under.includes(c) && !signChars.includes(c) && overlapShare(c.box, radicand.x0, sign.x1) >= STRADDLE);
  if (straddles) return undefined;
  // The sign's tick (its bar is the brackets): as tall as the radicand, so it is not taken for a stacked structure.
  const root: OcrChar = { text: '√', confidence: 1, box: { x0: sign.x0, y0: radicand.y0, x1: radicand.x0, y1: sign.y1 }, ownInk: true };
  // The brackets the bar stands for: placed by the ink, no ink of their own.
  const bracket = (text: string, x: number): OcrChar => ({ text, confidence: 1, box: { x0: x, y0: radicand.y0, x1: x, y1: radicand.y1 }, ownInk: false });
  const chars: OcrChar[] = [];
  for (const c of line.chars) {
    if (inSign(c)) continue;
    if (c === under[0]) chars.push(root, bracket('(', radicand.x0));
    chars.push(c);
    if (c === under.at(-1)) chars.push(bracket(')', sign.x1));
  }
  // The sign's blob is the root now, not ink enclosing glyphs: the line keeps only its tick.
  const inkBoxes = line.inkBoxes?.filter((b) => !(b.x0 >= sign.x0 - 1 && b.x1 <= sign.x1 + 1 && b.x0 < radicand.x0 && height(b) >= RADICAL_HEIGHT * height(radicand)));
  return { line: { ...line, text: chars.map((c) => c.text).join(''), chars, ...(inkBoxes === undefined ? {} : { inkBoxes: [...inkBoxes, root.box!] }) }, root };
}

/** The share of the box's width that lies within [x0, x1). */
function overlapShare(box: OcrBox, x0: number, x1: number): number {
  const inside = Math.max(0, Math.min(box.x1, x1) - Math.max(box.x0, x0));
  return Math.min(inside, width(box) - inside) / Math.max(1, width(box));
}
