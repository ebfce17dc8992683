import type { OcrBox, OcrChar } from '../port.js';
import { glyphPage } from '../testing/glyph-page.js';
import { CROSSED_STROKES_READING, crossedStrokes, readCrossedStrokes } from './crossed-strokes.js';

const page = glyphPage;

const STROKE = 0.12;
/** Two diagonals: an upright x or a times sign. */
const cross = (u: number, v: number): boolean => Math.abs(u - v) < STROKE || Math.abs(u + v - 1) < STROKE;
/** An open arc, a "c". */
const arc = (u: number, v: number): boolean => Math.abs(Math.hypot(u - 0.55, v - 0.5) - 0.42) < STROKE / 1.5 && u < 0.75;
/** Two strokes meeting at the bottom, a "v". */
const vee = (u: number, v: number): boolean => Math.abs(u - (0.5 - 0.45 * (1 - v))) < STROKE / 1.2 || Math.abs(u - (0.5 + 0.45 * (1 - v))) < STROKE / 1.2;
/** A bar across a bar, a "+". */
const plus = (u: number, v: number): boolean => Math.abs(u - 0.5) < STROKE || Math.abs(v - 0.5) < STROKE;
/** A serif "z": bars at the top and bottom, a diagonal between, a serif hanging from each bar's end. */
const serifZ = (u: number, v: number): boolean => v < 0.1 || v > 0.9 || Math.abs(u + v - 1) < STROKE || (u < 0.1 && v < 0.3) || (u > 0.9 && v > 0.7);
/** Crossed strokes with a ring between the upper arms: background enclosed. */
const looped = (u: number, v: number): boolean => cross(u, v) || Math.abs(Math.hypot(u - 0.5, v - 0.15) - 0.12) < 0.03;
/** Crossed strokes with a bar along the top from the left arm: a bar, not an arm, in the top band. */
const barred = (u: number, v: number): boolean => cross(u, v) || (v < 0.06 && u < 0.6);
/** "><": four arms, but two strokes that never cross. */
const apart = (u: number, v: number): boolean => Math.abs(u - (0.4 - 0.8 * Math.abs(v - 0.5))) < STROKE / 1.5 || Math.abs(u - (0.6 + 0.8 * Math.abs(v - 0.5))) < STROKE / 1.5;

/** A ring's stroke: within `half` of radius `r` about (cu, cv). */
const ring = (u: number, v: number, cu: number, cv: number, r: number, half = 0.035): boolean => Math.abs(Math.hypot(u - cu, v - cv) - r) < half;
const disc = (u: number, v: number, cu: number, cv: number, r: number): boolean => Math.hypot(u - cu, v - cv) < r;
/**
 * KaTeX's maths-italic x (ADR 0037): a stroke with a hook each side at its top and at its bottom, the
 * upper-right hook reaching past the lower-right one (its right columns meet one arm only).
 */
const curledX = (u: number, v: number): boolean =>
  (Math.abs(u - (0.55 - 0.1 * v)) < 0.04 && v > 0.04 && v < 0.96) ||
  (v < 0.25 && (ring(u, v, 0.27, 0.25, 0.2) || ring(u, v, 0.77, 0.25, 0.19))) ||
  (v > 0.75 && (ring(u, v, 0.24, 0.75, 0.2) || ring(u, v, 0.62, 0.75, 0.19)));
/** A "3" with ball terminals (Computer Modern's): two bowls meeting at a cusp, a ball at each free end. */
const ballThree = (u: number, v: number): boolean =>
  (ring(u, v, 0.45, 0.27, 0.22) && !(u < 0.45 && v > 0.27)) ||
  (ring(u, v, 0.45, 0.73, 0.25) && !(u < 0.45 && v < 0.73)) ||
  disc(u, v, 0.22, 0.12, 0.09) ||
  disc(u, v, 0.22, 0.88, 0.09);
/** An "m": three stems under two arches (three runs in most rows, never one). */
const em = (u: number, v: number): boolean => (v > 0.2 && (u < 0.12 || Math.abs(u - 0.5) < 0.06 || u > 0.88)) || (v <= 0.3 && (ring(u, v, 0.3, 0.3, 0.22) || ring(u, v, 0.7, 0.3, 0.22)));
/** A "w": four strokes meeting at two points at the bottom and one at the top between them. */
const doubleVee = (u: number, v: number): boolean => [0.08, 0.46, 0.54, 0.92].some((top, k) => Math.abs(u - (top + (k % 2 === 0 ? 1 : -1) * 0.17 * v)) < 0.05);
/** A "k": a stem, an arm up and a leg down from its middle. */
const kay = (u: number, v: number): boolean => u < 0.12 || (Math.abs(u - (0.12 + 0.8 * Math.abs(v - 0.5) * 2)) < 0.06 && u >= 0.12);

const GLYPH: OcrBox = { x0: 4, y0: 4, x1: 52, y1: 52 };

describe('crossedStrokes: two strokes crossing once, read from the ink (ADR 0037)', () => {
  it('finds crossed strokes in an x-like glyph', () => {
    expect(crossedStrokes(page(56, 56, [{ at: GLYPH, inked: cross }]), GLYPH)).toBe(true);
  });

  it("finds them in a curled x whose upper hook reaches past its lower one (its rows show a hook each side of the stroke)", () => {
    expect(crossedStrokes(page(56, 56, [{ at: GLYPH, inked: curledX }]), GLYPH)).toBe(true);
  });

  it.each([
    ['a "3" with ball terminals (a ball and a bowl above and below its cusp)', ballThree],
    ['an "m" (three runs in its rows, none alone in its middle)', em],
    ['a "w" (three runs and more in its rows, none alone in its middle)', doubleVee],
    ['a "k" (a stem and an arm above its middle, a stem and a leg below)', kay],
    ['an open arc ("c")', arc],
    ['two strokes meeting at the bottom ("v")', vee],
    ['a bar across a bar ("+")', plus],
    ['a serif "z" (bars, not arms, at its top and bottom)', serifZ],
    ['crossed strokes enclosing a hole', looped],
    ['crossed strokes with a bar for an arm', barred],
    ['four arms that never cross ("><")', apart],
  ])('does not find them in %s', (_, inked) => {
    expect(crossedStrokes(page(56, 56, [{ at: GLYPH, inked }]), GLYPH)).toBe(false);
  });

  it('does not judge a glyph too small to show its arms', () => {
    const tiny = { x0: 2, y0: 2, x1: 7, y1: 7 };
    expect(crossedStrokes(page(10, 10, [{ at: tiny, inked: cross }]), tiny)).toBe(false);
  });
});

/** A line "3?" with a digit 36 px high and a lower-case glyph 24 px high after it. */
const DIGIT: OcrBox = { x0: 2, y0: 4, x1: 24, y1: 40 };
const LOWER: OcrBox = { x0: 30, y0: 16, x1: 54, y1: 40 };
const digit = (u: number, v: number): boolean => u < 0.2 || v < 0.1 || v > 0.9;
const three: OcrChar = { text: '3', confidence: 0.999, box: DIGIT, ownInk: true };

describe('readCrossedStrokes: the maths-italic x PP-OCRv4 reads as "c" (ADR 0037)', () => {
  it('reads an unsure "c" on crossed strokes as a sure "x" with the blob as its ink', () => {
    const image = page(60, 44, [{ at: DIGIT, inked: digit }, { at: LOWER, inked: cross }]);
    const c: OcrChar = { text: 'c', confidence: 0.52, box: LOWER, alternatives: [{ text: 'r', confidence: 0.33 }], unlisted: 0.004, ownInk: true };
    const read = readCrossedStrokes([three, c], [DIGIT, LOWER], image, 36);
    expect(read.map((ch) => ch.text)).toEqual(['3', 'x']);
    expect(read[1]).toMatchObject({ confidence: CROSSED_STROKES_READING, box: LOWER, ownInk: true, alternatives: [] });
  });

  it('gives a near miss beside crossed strokes no character claims their "x"', () => {
    const image = page(60, 44, [{ at: DIGIT, inked: digit }, { at: LOWER, inked: cross }]);
    const nearMiss: OcrChar = { text: '', confidence: 0.48, alternatives: [{ text: 'c', confidence: 0.2 }], unlisted: 0.17 };
    expect(readCrossedStrokes([three, nearMiss], [DIGIT, LOWER], image, 36).map((ch) => ch.text)).toEqual(['3', 'x']);
  });

  it('reads a near miss and a sure space the recogniser placed on crossed strokes as one "x" (KaTeX\'s x at 28 px)', () => {
    const image = page(60, 44, [{ at: DIGIT, inked: digit }, { at: LOWER, inked: cross }]);
    const nearMiss: OcrChar = { text: '', confidence: 0.4, alternatives: [{ text: 'c', confidence: 0.21 }], unlisted: 0.18 };
    const space: OcrChar = { text: ' ', confidence: 0.997, box: LOWER, unlisted: 0.003, ownInk: true };
    const read = readCrossedStrokes([three, nearMiss, space], [DIGIT, LOWER], image, 36);
    expect(read.map((ch) => ch.text)).toEqual(['3', 'x']);
    expect(read[1]).toMatchObject({ box: LOWER, ownInk: true });
  });

  it('leaves a space alone on crossed strokes, and a near miss and a space on an arc, as read', () => {
    const space: OcrChar = { text: ' ', confidence: 0.997, box: LOWER, ownInk: true };
    const crossed = page(60, 44, [{ at: DIGIT, inked: digit }, { at: LOWER, inked: cross }]);
    expect(readCrossedStrokes([three, space], [DIGIT, LOWER], crossed, 36)).toEqual([three, space]);
    const nearMiss: OcrChar = { text: '', confidence: 0.4, alternatives: [{ text: 'c', confidence: 0.21 }], unlisted: 0.18 };
    const arched = page(60, 44, [{ at: DIGIT, inked: digit }, { at: LOWER, inked: arc }]);
    expect(readCrossedStrokes([three, nearMiss, space], [DIGIT, LOWER], arched, 36)).toEqual([three, nearMiss, space]);
  });

  it('leaves a sure reading, an arc and a capital-sized crossing as read', () => {
    const crossed = page(60, 44, [{ at: DIGIT, inked: digit }, { at: LOWER, inked: cross }]);
    const sureC: OcrChar = { text: 'c', confidence: 0.99, box: LOWER, ownInk: true };
    expect(readCrossedStrokes([three, sureC], [DIGIT, LOWER], crossed, 36)).toEqual([three, sureC]);
    const unsureC: OcrChar = { text: 'c', confidence: 0.6, box: LOWER, ownInk: true };
    const arched = page(60, 44, [{ at: DIGIT, inked: digit }, { at: LOWER, inked: arc }]);
    expect(readCrossedStrokes([three, unsureC], [DIGIT, LOWER], arched, 36)).toEqual([three, unsureC]);
    // As tall as the digit: a capital X is another unknown than x.
    const capital: OcrBox = { x0: 30, y0: 4, x1: 54, y1: 40 };
    const tall = page(60, 44, [{ at: DIGIT, inked: digit }, { at: capital, inked: cross }]);
    const unsureK: OcrChar = { text: 'K', confidence: 0.6, box: capital, ownInk: true };
    expect(readCrossedStrokes([three, unsureK], [DIGIT, capital], tall, 36)).toEqual([three, unsureK]);
  });
});
