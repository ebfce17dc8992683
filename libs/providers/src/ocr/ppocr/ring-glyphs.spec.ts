import type { OcrBox, OcrChar } from '../port.js';
import { glyphPage } from '../testing/glyph-page.js';
import { dottedRing, readRings } from './ring-glyphs.js';

const STROKE = 0.1;
/** An upright oval ring, a "0". */
const ring = (u: number, v: number): boolean => Math.abs(Math.hypot((u - 0.5) / 0.45, (v - 0.5) / 0.47) - 1) < STROKE / 0.45;
/** The dotted zero of DejaVu Sans Mono and Liberation Mono: a ring with a dot at its centre. */
const dotted = (u: number, v: number): boolean => ring(u, v) || Math.hypot(u - 0.5, v - 0.5) < 0.1;
/** A ring with a bar across it, a "θ". */
const theta = (u: number, v: number): boolean => ring(u, v) || (Math.abs(v - 0.5) < STROKE / 2 && u > 0.05 && u < 0.95);
/** A ring with a stroke inside as tall as much of the counter, a "①". */
const circledOne = (u: number, v: number): boolean => ring(u, v) || (Math.abs(u - 0.5) < STROKE / 1.5 && v > 0.25 && v < 0.75);
/** Two rings stacked, an "8". */
const eight = (u: number, v: number): boolean => Math.abs(Math.hypot((u - 0.5) / 0.4, (v - 0.27) / 0.24) - 1) < STROKE / 0.3 || Math.abs(Math.hypot((u - 0.5) / 0.45, (v - 0.73) / 0.24) - 1) < STROKE / 0.3;
/** A ring in the lower part with a stroke rising from its left, a "6". */
const six = (u: number, v: number): boolean => Math.abs(Math.hypot((u - 0.5) / 0.42, (v - 0.68) / 0.3) - 1) < STROKE / 0.35 || (Math.abs(u - (0.1 + 0.5 * (0.6 - v))) < STROKE && v < 0.65 && v > 0.03);

const GLYPH: OcrBox = { x0: 4, y0: 4, x1: 34, y1: 48 };

describe('dottedRing: one ring around one counter, at most a dot inside', () => {
  it.each([
    ['a plain ring ("0")', ring],
    ['a ring with a dot at its centre (a dotted zero)', dotted],
  ])('finds a ring in %s', (_, inked) => {
    expect(dottedRing(glyphPage(40, 52, [{ at: GLYPH, inked }]), GLYPH)).toBe(true);
  });

  it.each([
    ['a ring with a bar across it ("θ")', theta],
    ['a ring with a stroke inside ("①")', circledOne],
    ['two stacked rings ("8")', eight],
    ['a counter in the lower part only ("6")', six],
  ])('finds none in %s', (_, inked) => {
    expect(dottedRing(glyphPage(40, 52, [{ at: GLYPH, inked }]), GLYPH)).toBe(false);
  });
});

describe('readRings: readings the ink rules out are dropped (issue 25)', () => {
  // PP-OCRv4 on a monospaced dotted zero (seed 7919, "n² − 4n + 3 = 0"): "0" 0.72, "①" 0.16, "θ" 0.06, "@" 0.02.
  const zero: OcrChar = { text: '0', confidence: 0.72, box: GLYPH, ownInk: true, alternatives: [{ text: '①', confidence: 0.16 }, { text: 'θ', confidence: 0.06 }, { text: '@', confidence: 0.02 }], unlisted: 0.015 };

  it('drops "θ", "①" and "@" for a dotted ring, the rest taking their share', () => {
    const [read] = readRings([zero], glyphPage(40, 52, [{ at: GLYPH, inked: dotted }]));
    expect(read!.text).toBe('0');
    expect(read!.alternatives).toEqual([]);
    expect(read!.confidence).toBeCloseTo(0.72 / 0.76, 5);
    expect(read!.unlisted).toBeCloseTo(0.015 / 0.76, 5);
  });

  it('keeps every reading where the ink shows a bar across the ring', () => {
    expect(readRings([zero], glyphPage(40, 52, [{ at: GLYPH, inked: theta }]))).toEqual([zero]);
  });

  it('keeps a character without ink of its own as read', () => {
    const columns = { ...zero, ownInk: false };
    expect(readRings([columns], glyphPage(40, 52, [{ at: GLYPH, inked: dotted }]))).toEqual([columns]);
  });

  it('reads a dotted ring the recogniser read "θ" as its likeliest other reading', () => {
    const misread: OcrChar = { ...zero, text: 'θ', confidence: 0.5, alternatives: [{ text: '0', confidence: 0.4 }, { text: 'O', confidence: 0.05 }] };
    const [read] = readRings([misread], glyphPage(40, 52, [{ at: GLYPH, inked: dotted }]));
    expect(read!.text).toBe('0');
    expect(read!.confidence).toBeCloseTo(0.8, 5);
    expect(read!.alternatives).toEqual([{ text: 'O', confidence: expect.closeTo(0.1, 5) as number }]);
  });
});
