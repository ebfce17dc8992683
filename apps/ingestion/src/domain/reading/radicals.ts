import type { OcrBox, OcrChar, OcrLine } from '@openpaw/providers/ocr';
import { GLYPH_HEIGHT } from './line-geometry.js';

/**
 * Square roots placed from the ink (issue 25). A line reader reads "√64 − 20" as "V64 - 20" or
 * "√64 - 20": it cannot say how far the root's bar reaches ("√36+31" may be √(36+31)). The page's ink
 * can. A radical sign is one connected stroke: the tick at its left and the bar over its radicand, so
 * its blob is at least a character tall and its columns hold the radicand's glyphs, which sit under the
 * bar and end on the sign's own foot. The radicand is what the line reader read in those columns; the
 * sign is what it read before them. The ink says it is a root sign, so the recogniser need not: PP-OCRv4
 * reads KaTeX's radical as "V" at 0.19, "√" at 0.56 or nothing at all (issue 25, the largest cause of
 * refusals). Only a reading of something else there, sure enough to stand (a "7" read at 0.99), keeps
 * the radical unplaced. Anything else that encloses glyphs (a frame, a big bracket, an index in the
 * root's crook) is not placed, and stays a doubt: a reading that could be other maths is refused.
 */
export interface PlacedRoots {
  /** The lines with each placed root written "√(radicand)". */
  readonly lines: readonly OcrLine[];
  /** The radical signs' blobs (or their pieces) that were placed: ink the reading now accounts for. */
  readonly roots: readonly OcrBox[];
  /** The "√" characters written from the ink (their bars' reach is known). */
  readonly placed: ReadonlySet<OcrChar>;
}

/** What a line reader reads a radical sign, or its tick, as. */
const ROOT_SIGN = /^[√Vv✓/]$/u;
/** A reading in the sign's columns of something else, at least this probable, says the ink there is no root sign. */
const OTHER_SIGN = 0.5;
/** The sign (tick and rising stroke) is at least this many character heights wide: a frame's or a bracket's edge is a thin stroke. */
const SIGN_WIDTH = 0.3;
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
/** The box around the given boxes. */
const around = (boxes: readonly OcrBox[]): OcrBox => ({ x0: Math.min(...boxes.map((g) => g.x0)), y0: Math.min(...boxes.map((g) => g.y0)), x1: Math.max(...boxes.map((g) => g.x1)), y1: Math.max(...boxes.map((g) => g.y1)) });
const isSpace = (c: OcrChar): boolean => c.text !== '' && c.text.trim() === '';

interface Radical {
  /** The radical sign's blob: tick, rising stroke and bar. */
  readonly sign: OcrBox;
  /** The box of the glyphs under its bar. */
  readonly radicand: OcrBox;
  /** Those glyphs' blobs. */
  readonly glyphs: readonly OcrBox[];
  /** The sign's blobs: the one stroke, or its tick and its bar where the rising stroke between them was lost. */
  readonly pieces: readonly OcrBox[];
}

/** A root's bar is thinner than this many character heights (a stroke, not a glyph). */
const BAR_HEIGHT = 0.2;
/** ... and at least this wide: it spans a glyph. */
const BAR_WIDTH = 0.5;
/** A tick whose rising stroke was lost ends at most this many character heights left of its bar. */
const LOST_STROKE = 1;
/** A tick is at least this many character heights tall (it descends from the maths axis to the foot). */
const TICK_HEIGHT = 0.5;

/** The radical blobs of the page: tall blobs whose columns hold glyphs under a bar and standing on the blob's foot. */
function radicals(ink: readonly OcrBox[], charHeight: number): Radical[] {
  const glyphs = ink.filter((b) => height(b) >= GLYPH_HEIGHT * charHeight);
  return glyphs.flatMap((outer) => {
    if (height(outer) < RADICAL_HEIGHT * charHeight) return [];
    const inner = glyphs.filter((g) => g !== outer && g.x0 >= outer.x0 && g.x1 <= outer.x1 && g.y0 < outer.y1 && g.y1 > outer.y0 && width(g) < width(outer));
    if (inner.length === 0) return [];
    const radicand = around(inner);
    const underBar = radicand.y0 > outer.y0 && radicand.y0 - outer.y0 <= BAR_GAP * charHeight;
    // Every glyph stands on the foot: a small index raised in the root's crook ("∛8") is no radicand.
    const onFoot = inner.every((g) => Math.abs(outer.y1 - g.y1) <= FOOT * charHeight);
    return underBar && onFoot && radicand.x0 - outer.x0 >= SIGN_WIDTH * charHeight ? [{ sign: outer, radicand, glyphs: inner, pieces: [outer] }] : [];
  });
}

/**
 * Radicals in two pieces (issue 25, a 40 % copy of KaTeX's √225): the thin rising stroke between the tick
 * and the bar is lost to the ink cut, leaving a tick and, a little to its right and above it, a bar over
 * glyphs that stand on the tick's foot, with nothing stacked over the bar (a fraction's numerator). The
 * ink alone does not make that a root: the recogniser must read the tick as one (`placeRoot`).
 */
function splitRadicals(ink: readonly OcrBox[], charHeight: number): Radical[] {
  const glyphs = ink.filter((b) => height(b) >= GLYPH_HEIGHT * charHeight);
  const bars = ink.filter((b) => height(b) < BAR_HEIGHT * charHeight && width(b) >= BAR_WIDTH * charHeight);
  return glyphs.flatMap((tick) =>
    bars.flatMap((bar) => {
      const beside = bar.x0 >= tick.x1 - 1 && bar.x0 - tick.x1 <= LOST_STROKE * charHeight && bar.y1 <= tick.y0 + BAR_HEIGHT * charHeight;
      if (height(tick) < TICK_HEIGHT * charHeight || !beside) return [];
      // Under the bar's own columns (an index sits over the tick, left of them); a shrunk copy breaks glyphs, so their union stands on the foot.
      const inner = glyphs.filter((g) => g.x0 >= bar.x0 - 1 && g.x1 <= bar.x1 + 1 && g.y0 > bar.y1 && g.y0 - bar.y0 <= BAR_GAP * charHeight);
      const stackedOver = glyphs.some((g) => g.y1 <= bar.y0 + 1 && Math.min(g.x1, bar.x1) - Math.max(g.x0, bar.x0) > 0.5 * width(g));
      if (inner.length === 0 || stackedOver) return [];
      const radicand = around(inner);
      if (Math.abs(tick.y1 - radicand.y1) > FOOT * charHeight) return [];
      const sign = { x0: tick.x0, y0: bar.y0, x1: bar.x1, y1: Math.max(tick.y1, radicand.y1) };
      return radicand.x0 - sign.x0 >= SIGN_WIDTH * charHeight ? [{ sign, radicand, glyphs: inner, pieces: [tick, bar] }] : [];
    }),
  );
}

/** Whether the character was read as a root sign, or read as nothing with a root sign its likeliest other reading. */
const readAsRoot = (c: OcrChar): boolean => ROOT_SIGN.test(c.text) || (c.text === '' && ROOT_SIGN.test(c.alternatives?.[0]?.text ?? ''));

/** Places each radical whose sign and radicand the line reader read cleanly; every other line and radical is left as it was. */
export function placeRoots(lines: readonly OcrLine[], ink: readonly OcrBox[], charHeight: number): PlacedRoots {
  const roots: OcrBox[] = [];
  const placed = new Set<OcrChar>();
  let out = [...lines];
  for (const radical of [...radicals(ink, charHeight), ...splitRadicals(ink, charHeight)]) {
    const { sign } = radical;
    const at = out.findIndex((l) => l.box.y0 < sign.y1 && l.box.y1 > sign.y0 && l.box.x0 < sign.x1 && l.box.x1 > sign.x0);
    const line = out[at];
    if (line === undefined) continue;
    const written = placeRoot(line, radical);
    if (written === undefined) continue;
    out = out.map((l, i) => (i === at ? written.line : l));
    roots.push(...radical.pieces);
    placed.add(written.root);
  }
  return { lines: out, roots, placed };
}

function placeRoot(line: OcrLine, { sign, radicand, glyphs, pieces }: Radical): { line: OcrLine; root: OcrChar } | undefined {
  const inked = (c: OcrChar): c is OcrChar & { box: OcrBox } => c.box !== undefined;
  if (!line.chars.every((c) => inked(c) || c.text.trim() === '')) return undefined;
  // A character whose box is the radical's whole blob took the sign's ink for its own (the recogniser's
  // columns for it held the blob's centre): it is the sign when read as one or as nothing, else a radicand glyph.
  const tookBlob = (c: OcrChar): boolean => inked(c) && Math.abs(c.box.x0 - sign.x0) <= 1 && Math.abs(c.box.x1 - sign.x1) <= 1;
  const inSign = (c: OcrChar): boolean => inked(c) && (tookBlob(c) ? c.text === '' || readAsRoot(c) : centre(c.box) >= sign.x0 && centre(c.box) < radicand.x0);
  const underBar = (c: OcrChar): boolean => inked(c) && !inSign(c) && (tookBlob(c) || (centre(c.box) >= radicand.x0 && centre(c.box) < sign.x1));
  const signChars = line.chars.filter((c) => inSign(c) && (c.text.trim() !== '' || c.text === ''));
  // The ink is a radical whatever the recogniser read there, unless it read something else sure enough to stand ("7" at 0.99).
  if (signChars.some((c) => c.text.trim() !== '' && !readAsRoot(c) && c.confidence >= OTHER_SIGN)) return undefined;
  // A sign in pieces is a root only when the recogniser read one there too: a tick and a bar apart could be other marks.
  if (pieces.length > 1 && !signChars.some((c) => ROOT_SIGN.test(c.text))) return undefined;
  const under = line.chars.filter(underBar);
  if (!under.some((c) => c.text.trim() !== '')) return undefined;
  // A character half under the bar and half past its end: where the radicand ends is not clear.
  const straddles = line.chars.some((c) => inked(c) && c.text.trim() !== '' && !under.includes(c) && !signChars.includes(c) && overlapShare(c.box, radicand.x0, sign.x1) >= STRADDLE);
  if (straddles) return undefined;
  const reboxed = withGlyphBoxes(under, glyphs, tookBlob);
  // The sign's tick (its bar is the brackets): as tall as the radicand, so it is not taken for a stacked structure.
  const root: OcrChar = { text: '√', confidence: 1, box: { x0: sign.x0, y0: radicand.y0, x1: radicand.x0, y1: sign.y1 }, ownInk: true };
  // The brackets the bar stands for: placed by the ink, no ink of their own.
  const bracket = (text: string, x: number): OcrChar => ({ text, confidence: 1, box: { x0: x, y0: radicand.y0, x1: x, y1: radicand.y1 }, ownInk: false });
  // A near miss the recogniser placed just before the sign or the radicand (no box: a character it nearly
  // read in the gap) was its reading of the sign's ink ("" at 0.66, "<" 0.15): the ink has read that.
  const nextInked = (i: number): OcrChar | undefined => line.chars.slice(i + 1).find(inked);
  const signsNearMiss = (c: OcrChar, i: number): boolean => !inked(c) && c.text === '' && [under[0], ...signChars].includes(nextInked(i));
  const chars: OcrChar[] = [];
  for (const [i, c] of line.chars.entries()) {
    // A space read over the sign's columns is the word gap before it ("Evaluate √81"), not the sign.
    if ((inSign(c) && !isSpace(c)) || signsNearMiss(c, i)) continue;
    if (c === under[0]) chars.push(root, bracket('(', radicand.x0));
    chars.push(reboxed.get(c) ?? c);
    if (c === under.at(-1)) chars.push(bracket(')', sign.x1));
  }
  // The sign's blob is the root now, not ink enclosing glyphs: the line keeps only its tick.
  const samePlace = (a: OcrBox, b: OcrBox): boolean => a.x0 === b.x0 && a.x1 === b.x1 && a.y0 === b.y0 && a.y1 === b.y1;
  const ofSign = (b: OcrBox): boolean => pieces.some((p) => samePlace(p, b)) || (b.x0 >= sign.x0 - 1 && b.x1 <= sign.x1 + 1 && b.x0 < radicand.x0 && height(b) >= RADICAL_HEIGHT * height(radicand));
  const inkBoxes = line.inkBoxes?.filter((b) => !ofSign(b));
  return { line: { ...line, text: chars.map((c) => c.text).join(''), chars, ...(inkBoxes === undefined ? {} : { inkBoxes: [...inkBoxes, root.box!] }) }, root };
}

/**
 * The radicand's characters whose boxes took the radical's blob, each given its own glyph: the glyphs under
 * the bar that no other radicand character's box holds, in reading order, one to each such character. Where
 * they do not pair off one to one, the boxes stay as read (a glyph that stands tall is then a doubt).
 */
function withGlyphBoxes(under: readonly OcrChar[], glyphs: readonly OcrBox[], tookBlob: (c: OcrChar) => boolean): Map<OcrChar, OcrChar> {
  const blobbed = under.filter((c) => c.text.trim() !== '' && tookBlob(c));
  const held = under.filter((c) => c.box !== undefined && c.text.trim() !== '' && !tookBlob(c)).map((c) => c.box!);
  const free = glyphs.filter((g) => !held.some((b) => centre(g) >= b.x0 && centre(g) <= b.x1)).sort((a, b) => a.x0 - b.x0);
  if (blobbed.length === 0 || free.length !== blobbed.length) return new Map();
  return new Map(blobbed.map((c, i) => [c, { ...c, box: free[i]! }]));
}

/** The share of the box's width that lies within [x0, x1). */
function overlapShare(box: OcrBox, x0: number, x1: number): number {
  const inside = Math.max(0, Math.min(box.x1, x1) - Math.max(box.x0, x0));
  return Math.min(inside, width(box) - inside) / Math.max(1, width(box));
}
