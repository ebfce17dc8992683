import type { OcrAlternative, OcrBox, OcrChar } from '../port.js';
import { backgroundRegions, connectedComponents, inkMask, type RgbRaster } from '../raster.js';

/**
 * Whether a glyph's ink is one ring around one counter, with at most a dot inside it that touches
 * nothing: a "0" (plain, or the dotted zero of DejaVu Sans Mono and Liberation Mono), an "O", an "o".
 * The counter spans most of the glyph both ways, so a "6", "9", "a", "e", "p" (a counter in one part
 * of the glyph) are no ring; a "θ" or an "8" has two counters; a "①" or an "@" holds a glyph inside
 * its ring, as tall as much of the counter, or joined to it.
 */
export function dottedRing(image: RgbRaster, blob: OcrBox): boolean {
  const w = blob.x1 - blob.x0;
  const h = blob.y1 - blob.y0;
  if (w < MIN_SIDE || h < MIN_SIDE) return false;
  const ink = inkMask(image, blob);
  if (ink === undefined) return false;
  // Background 4-connected (so a ring touching itself at a corner still encloses), ink 8-connected.
  const paper = backgroundRegions(ink, w, h);
  const counters = paper.filter((r) => !r.touchesBorder && r.area > Math.max(1, HOLE_SHARE * w * h));
  if (counters.length !== 1) return false;
  const counter = counters[0]!;
  const spans = counter.y0 <= RING_EDGE * h && counter.y1 + 1 >= (1 - RING_EDGE) * h && counter.x0 <= RING_EDGE * w && counter.x1 + 1 >= (1 - RING_EDGE) * w;
  if (!spans) return false;
  const strokes = connectedComponents(w, h, (i) => ink[i] === 1).components.filter((c) => (c.x1 - c.x0 + 1) * (c.y1 - c.y0 + 1) >= MIN_PIECE);
  if (strokes.length === 0) return false;
  const ring = strokes.reduce((a, b) => ((b.x1 - b.x0) * (b.y1 - b.y0) > (a.x1 - a.x0) * (a.y1 - a.y0) ? b : a));
  const islands = strokes.filter((c) => c !== ring);
  if (islands.length > 1) return false;
  const counterHeight = counter.y1 - counter.y0 + 1;
  const counterWidth = counter.x1 - counter.x0 + 1;
  return islands.every((d) => d.x0 > counter.x0 && d.x1 < counter.x1 && d.y0 > counter.y0 && d.y1 < counter.y1 && d.y1 - d.y0 + 1 <= DOT * counterHeight && d.x1 - d.x0 + 1 <= DOT * counterWidth);
}

/** Below this many pixels a side, a counter cannot be told from antialiasing. */
const MIN_SIDE = 8;
/** A counter this large (share of the box) is enclosed paper, not a gap between two strokes' antialiased edges. */
const HOLE_SHARE = 0.02;
/** The counter reaches within this share of the glyph's side of each edge: the ring is all of the glyph. */
const RING_EDGE = 0.35;
/** A mark inside the counter at most this share of its height and width is a dot, not a glyph (the "1" of "①"). */
const DOT = 0.45;
/** Ink pieces smaller than this many pixels (their box) are specks, not strokes. */
const MIN_PIECE = 4;

/**
 * Readings whose glyph is no ring with at most a dot inside (`dottedRing`): a second counter ("θ", "8",
 * "B"), a stroke across the counter ("ø", "⊖", "⊕", "⊗"), or a glyph inside or joined to the ring ("@",
 * "©", "®", the circled digits and letters).
 */
const NOT_A_RING = /[8BθΘϑϴøØ⊖⊕⊗⊘@©®\u2460-\u24ff\u2776-\u2793\u3251-\u32bf]/u;

/**
 * The line's characters with the readings their ink rules out removed (issue 25): where the recogniser
 * weighed a reading that is no ring (`NOT_A_RING`) for a character whose ink is a ring with at most a dot
 * (`dottedRing`), that reading is dropped and the rest take its share in proportion. PP-OCRv4 reads the
 * dotted zero of monospaced fonts "0" at 0.45–0.72 beside "θ" and "①" (its dot), so "= 0" was refused as
 * possibly "= θ" or "= 1". What the ink leaves (0, O, o) is still the recogniser's and the judge's call.
 */
export function readRings(chars: readonly OcrChar[], image: RgbRaster): OcrChar[] {
  return chars.map((c) => {
    if (c.ownInk !== true || c.box === undefined || c.text === '') return c;
    const readings: OcrAlternative[] = [{ text: c.text, confidence: c.confidence }, ...(c.alternatives ?? [])];
    const ruledOut = readings.filter((r) => NOT_A_RING.test(r.text));
    if (ruledOut.length === 0 || ruledOut.length === readings.length || !dottedRing(image, c.box)) return c;
    const left = readings.filter((r) => !NOT_A_RING.test(r.text));
    const share = 1 - ruledOut.reduce((sum, r) => sum + r.confidence, 0);
    const [first, ...rest] = left.map((r) => ({ text: r.text, confidence: r.confidence / share }));
    return { ...c, text: first!.text, confidence: first!.confidence, alternatives: rest.sort((a, b) => b.confidence - a.confidence), unlisted: (c.unlisted ?? 0) / share };
  });
}
