import type { OcrBox, OcrChar } from '../port.js';
import { backgroundRegions, inkMask, type RgbRaster } from '../raster.js';

/**
 * Whether a blob of ink is two strokes crossing once, an "x" or a "×" (ADR 0037): four arms, one
 * crossing, no enclosed hole. Each band of the glyph is cut by its ink into runs:
 * - the top and bottom bands of rows meet two arms each (two runs or more: a curled x's arc and its
 *   stroke's end make three), a row of the middle band only the crossing (one run), and no line of an
 *   edge band is a bar (a run across half the side or more);
 * - the left and right bands of columns meet two arms each (the middle columns may cut the slanted
 *   stroke and an arc both, so they say nothing); or, where a curled x's upper hook reaches past its
 *   lower one, most rows above and below the middle band cross a hook each side of the stroke (`hooked`).
 * "c", "r", "k", "v", "y", "z", "s", "+", "α" and "∞" fail at least one test: a "c" and an "r" show one
 * run in their left columns, a "v" and a "y" one at the bottom, a "+" one at the top, a serif "s" or
 * "z" a bar at the top or bottom, an "α" or an "∞" a hole. KaTeX's maths-italic x (Computer Modern's curled x), which PP-OCRv4 reads as "c", "α", "r" or
 * "∞", passes like the upright x of prose fonts: the shape is read from the ink, not from a font.
 */
export function crossedStrokes(image: RgbRaster, blob: OcrBox): boolean {
  const w = blob.x1 - blob.x0;
  const h = blob.y1 - blob.y0;
  if (w < MIN_SIDE || h < MIN_SIDE || w > MAX_ASPECT * h || h > MAX_ASPECT * w) return false;
  const ink = inkMask(image, blob);
  if (ink === undefined) return false;
  const at = (x: number, y: number): boolean => ink[y * w + x] === 1;
  const rowRuns = (y: number): number => runs(w, (x) => at(x, y));
  const columnRuns = (x: number): number => runs(h, (y) => at(x, y));
  const band = (size: number, from: number, to: number): number[] => {
    const out: number[] = [];
    for (let i = Math.floor(from * size); i < Math.ceil(to * size); i += 1) out.push(i);
    return out;
  };
  const arms = (lines: readonly number[], count: (i: number) => number): boolean => lines.filter((i) => count(i) >= 2).length > ARMS_SHARE * lines.length;
  const crossing = band(h, 0.5 - MIDDLE_BAND, 0.5 + MIDDLE_BAND).some((y) => rowRuns(y) === 1);
  // The arms are strokes: a run across most of an edge band's line is a bar ("z", "s", "E").
  const bar = (lines: readonly number[], longest: (i: number) => number, side: number): boolean => lines.some((i) => longest(i) > BAR * side);
  const rowBar = (y: number): number => longestRun(w, (x) => at(x, y));
  const columnBar = (x: number): number => longestRun(h, (y) => at(x, y));
  return (
    arms(band(h, 0, EDGE_BAND), rowRuns) &&
    arms(band(h, 1 - EDGE_BAND, 1), rowRuns) &&
    crossing &&
    !bar([...band(h, 0, EDGE_BAND), ...band(h, 1 - EDGE_BAND, 1)], rowBar, w) &&
    !bar([...band(w, 0, EDGE_BAND), ...band(w, 1 - EDGE_BAND, 1)], columnBar, h) &&
    ((arms(band(w, 0, EDGE_BAND), columnRuns) && arms(band(w, 1 - EDGE_BAND, 1), columnRuns)) || hooked(band(h, 0, 0.5 - MIDDLE_BAND), band(h, 0.5 + MIDDLE_BAND, 1), rowRuns)) &&
    !enclosesHole(ink, w, h)
  );
}

/** Below this many pixels a side, a glyph's arms cannot be told from its crossing. */
const MIN_SIDE = 6;
/** A glyph twice as wide as tall, or as tall as wide, is no single x (two glyphs run together, a bar). */
const MAX_ASPECT = 2;
/** The top, bottom, left and right bands: this share of the glyph's side each (an x's arms are still apart there; a "v"'s strokes have met). */
const EDGE_BAND = 0.15;
/** More than this share of an edge band's lines must meet two arms or more (a stroke's rounded end may meet one; a curled x's arc and its stroke's end three). */
const ARMS_SHARE = 0.5;
/** The middle band reaches this share of the side either side of the middle (the crossing of a slanted x sits off centre). */
const MIDDLE_BAND = 0.2;

/**
 * A curled x's side arms seen from its rows (ADR 0037): KaTeX's maths-italic x at 21 px is a stroke with a
 * hook each side at its top and at its bottom, and one hook may reach past the other (its side columns then
 * meet one arm). Most rows above the middle band and most below it cross three runs: the left hook, the
 * stroke, the right hook. A "3" (its ball and a bowl), an "8", a "k", an "s" or a "z" cross two at most;
 * an "m" or a "w" crosses three but never one in its middle (`crossing`).
 */
function hooked(above: readonly number[], below: readonly number[], rowRuns: (y: number) => number): boolean {
  const threeRuns = (rows: readonly number[]): boolean => rows.filter((y) => rowRuns(y) >= 3).length > ARMS_SHARE * rows.length;
  return threeRuns(above) && threeRuns(below);
}

/** An edge band's run longer than this share of the side is a bar, not an arm. */
const BAR = 0.5;

/** The longest run of ink along a line of `length` pixels. */
function longestRun(length: number, inked: (i: number) => boolean): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < length; i += 1) {
    run = inked(i) ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** The runs of ink along a line of `length` pixels. */
function runs(length: number, inked: (i: number) => boolean): number {
  let count = 0;
  let previous = false;
  for (let i = 0; i < length; i += 1) {
    const now = inked(i);
    if (now && !previous) count += 1;
    previous = now;
  }
  return count;
}

/** A hole this large (share of the box) is enclosed background, not a gap between two strokes' antialiased edges. */
const HOLE_SHARE = 0.01;

/** Whether background the box's border cannot reach (4-way) is enclosed by the ink: a loop ("α", "∞", "o"). */
function enclosesHole(ink: Uint8Array, w: number, h: number): boolean {
  const enclosed = backgroundRegions(ink, w, h).reduce((sum, r) => sum + (r.touchesBorder ? 0 : r.area), 0);
  return enclosed > Math.max(1, HOLE_SHARE * w * h);
}

/**
 * How sure a reading of crossed strokes is (ADR 0037): as sure as the judge's and the second look's
 * bars (0.98), so the glyph is neither looked at again (the recogniser alone read the curled x "c" or
 * "9" at 0.2, never surer) nor weighed against readings the ink rules out. Whether it is the letter or
 * the sign is the line's geometry's business (its lift, its neighbours), as for any x the recogniser reads.
 */
export const CROSSED_STROKES_READING = 0.98;
/** A blob at most this share of the line's character height (digits, capitals) is lower case: a capital X is another unknown. */
const LOWER_CASE_MAX = 0.85;
/** ... and at least this share: smaller crossed ink is a mark (an asterisk, noise), not a character. */
const LOWER_CASE_MIN = 0.4;

/**
 * The line's characters with each crossed-strokes blob (`crossedStrokes`) read "x" where the recogniser
 * read it unsure ("x" at 0.4 is confirmed; whether it is the letter or "×" is the line geometry's call): PP-OCRv4 does not know KaTeX's maths-italic x and reads it "c", "α",
 * "r", "∞" or "2", or splits it between a character and a near miss ('' with a character as its
 * alternative), or reads nothing there. The characters the recogniser placed on the blob (their ink's or
 * columns' centre within it), all unsure, become one "x" with the blob as its ink; a blob with a sure
 * character on it, or with none and no near miss beside it, is left as read. Spaces placed on it count
 * as nothing either way (a space is not what ink is read as): they go into the "x".
 */
export function readCrossedStrokes(chars: readonly OcrChar[], ink: readonly OcrBox[], image: RgbRaster, charHeight: number): OcrChar[] {
  let out = [...chars];
  for (const blob of ink) {
    const height = blob.y1 - blob.y0;
    if (height > LOWER_CASE_MAX * charHeight || height < LOWER_CASE_MIN * charHeight) continue;
    const on = onBlob(out, blob);
    // A space is no reading of ink: a sure one on the blob claims nothing there (issue 25: KaTeX's x at 28 px
    // read as a near miss, "c" at 0.21, then a space at 0.997 placed on the x's own ink).
    const read = on.filter((i) => !isSpace(out[i]!));
    if (read.length === 0 || read.some((i) => out[i]!.confidence >= CROSSED_STROKES_READING && out[i]!.text !== '')) continue;
    if (!crossedStrokes(image, blob)) continue;
    out = [...out.slice(0, on[0]), { text: 'x', confidence: CROSSED_STROKES_READING, box: blob, alternatives: [], unlisted: 0, ownInk: true }, ...out.slice(on.at(-1)! + 1)];
  }
  return out;
}

const isSpace = (c: OcrChar): boolean => c.text !== '' && c.text.trim() === '';

/**
 * The indices of the characters the recogniser placed on the blob, in a row: those whose box centres in
 * its columns, and the near misses ('' without a box) between two such or between the characters either
 * side of the blob. Empty when none, or when something else lies between them.
 */
function onBlob(chars: readonly OcrChar[], blob: OcrBox): number[] {
  const centre = (b: OcrBox): number => (b.x0 + b.x1) / 2;
  const side = (c: OcrChar): 'before' | 'on' | 'after' | undefined => {
    if (c.box === undefined) return undefined;
    const x = centre(c.box);
    return x < blob.x0 ? 'before' : x >= blob.x1 ? 'after' : 'on';
  };
  const on: number[] = [];
  for (const [i, c] of chars.entries()) {
    if (side(c) === 'on') on.push(i);
    else if (c.box === undefined && c.text === '') {
      // A near miss stands where its characters before and after it put it.
      const before = chars.slice(0, i).findLast((b) => b.box !== undefined);
      const after = chars.slice(i + 1).find((a) => a.box !== undefined);
      if ((before === undefined || side(before) !== 'after') && (after === undefined || side(after) !== 'before')) on.push(i);
    }
  }
  const contiguous = on.every((i, k) => k === 0 || i === on[k - 1]! + 1);
  return contiguous ? on : [];
}
