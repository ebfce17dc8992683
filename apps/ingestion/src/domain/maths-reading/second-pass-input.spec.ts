import { binarised, cropForReading } from './second-pass-input.js';

/** A page of `size` pixels in tone `page`, with `inkShare` of them (spread evenly) in tone `ink`, and one resampling halo above the page tone. */
function page(size: number, tone: number, ink: number, inkShare: number): Uint8Array {
  const pixels = new Uint8Array(size).fill(tone);
  const step = Math.round(1 / inkShare);
  for (let i = 0; i < size; i += step) pixels[i] = ink;
  pixels[1] = Math.min(255, tone + 20);
  return pixels;
}

describe('the second pass binarisation', () => {
  it('keeps a darkened page white and its text black when the text covers well under 1 % of it', () => {
    const dark = page(100_000, 153, 13, 0.005);
    const out = binarised(dark);
    expect(out[0]).toBe(0);
    expect(out[1]).toBe(255);
    expect(out[2]).toBe(255);
    expect(out.filter((v) => v === 0).length).toBe(dark.filter((v) => v === 13).length);
  });

  it('turns light text on a dark page into dark text on white', () => {
    const out = binarised(page(10_000, 30, 230, 0.02));
    expect(out[0]).toBe(0);
    expect(out[2]).toBe(255);
  });

  it('leaves a page without contrast as it is', () => {
    const flat = page(10_000, 200, 210, 0.02);
    expect(binarised(flat)).toBe(flat);
  });
});

describe("an exponent's crop", () => {
  it('is read as it is when light, and cut to black on white when darkened', () => {
    const light = page(10_000, 250, 20, 0.05);
    expect(cropForReading(light)).toBe(light);
    const out = cropForReading(page(10_000, 153, 13, 0.05));
    expect([out[0], out[2]]).toEqual([0, 255]);
  });
});
