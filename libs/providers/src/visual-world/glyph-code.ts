import { seededRandom } from './prng.js';

/** A face glyph is a GRID×GRID pattern of dark/light cells inside a magenta frame. */
export const GLYPH_GRID = 5;
export const GLYPH_BITS = GLYPH_GRID * GLYPH_GRID;
/** Frame thickness as a share of the glyph's side. */
export const FRAME_FRACTION = 1 / 7;
export const FRAME_RGB = [230, 20, 210] as const;
export const DARK_CELL = 25;
export const LIGHT_CELL = 235;
/** Codes differ in at least this many cells, so a few misread cells never turn one person into another. */
export const MIN_CODE_DISTANCE = 8;

export function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v !== 0; v &= v - 1) n += 1;
  return n;
}

/**
 * `count` glyph codes, deterministic from the seed: balanced (10–15 dark cells, so the light/dark
 * threshold is well defined) and pairwise at least MIN_CODE_DISTANCE cells apart.
 */
export function glyphCodebook(count: number, seed: number): number[] {
  const random = seededRandom(seed ^ 0x9e3779b9);
  const codes: number[] = [];
  for (let tries = 0; codes.length < count; tries += 1) {
    if (tries > 200_000) throw new Error(`cannot find ${count} glyph codes ${MIN_CODE_DISTANCE} apart`);
    const code = Math.floor(random() * 2 ** GLYPH_BITS);
    const ones = popcount(code);
    if (ones < 10 || ones > 15) continue;
    if (codes.every((c) => popcount(c ^ code) >= MIN_CODE_DISTANCE)) codes.push(code);
  }
  return codes;
}

/** Cell (row, col) of a code: bit row*GRID+col, 1 = dark. */
export function cellIsDark(code: number, row: number, col: number): boolean {
  return ((code >>> (row * GLYPH_GRID + col)) & 1) === 1;
}
