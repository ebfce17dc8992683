import { dctPhash, hammingDistance, lowFrequencyDct, PHASH_VERSION, phashFromHex, phashToHex } from './phash.js';

function naiveDct(pixels: Float64Array, u: number, v: number): number {
  const n = 32;
  const alpha = (k: number): number => (k === 0 ? Math.sqrt(1 / n) : Math.sqrt(2 / n));
  let sum = 0;
  for (let y = 0; y < n; y += 1) {
    for (let x = 0; x < n; x += 1) {
      sum += (pixels[y * n + x] ?? 0) * Math.cos(((2 * y + 1) * u * Math.PI) / (2 * n)) * Math.cos(((2 * x + 1) * v * Math.PI) / (2 * n));
    }
  }
  return alpha(u) * alpha(v) * sum;
}

function randomImage(seed: number): Float64Array {
  let state = seed;
  return Float64Array.from({ length: 1024 }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    // The high byte: an LCG's low bits cycle with short periods.
    return state >>> 24;
  });
}

describe('DCT pHash', () => {
  it('computes the orthonormal 2-D DCT-II low-frequency block exactly', () => {
    const pixels = randomImage(7);
    const block = lowFrequencyDct(pixels);
    for (let u = 0; u < 8; u += 1) {
      for (let v = 0; v < 8; v += 1) expect(block[u * 8 + v]).toBeCloseTo(naiveDct(pixels, u, v), 8);
    }
  });

  it('thresholds the 64 coefficients (DC included) at their median: exactly 32 bits set', () => {
    for (const seed of [1, 2, 3, 4]) {
      const hash = dctPhash(randomImage(seed));
      expect(hash.toString(2).split('').filter((b) => b === '1')).toHaveLength(32);
      // DC is the mean brightness scaled by 32: far above every other coefficient's median.
      expect(hash >> 63n).toBe(1n);
    }
  });

  it('ignores uniform brightness and contrast changes', () => {
    const pixels = randomImage(9);
    const brighter = pixels.map((p) => p * 0.8 + 30);
    expect(hammingDistance(dctPhash(pixels), dctPhash(brighter))).toBe(0);
  });

  it('round-trips through hex and counts bit differences', () => {
    const hash = dctPhash(randomImage(5));
    expect(phashFromHex(phashToHex(hash))).toBe(hash);
    expect(phashToHex(1n)).toBe('0000000000000001');
    expect(hammingDistance(0n, 0xffn)).toBe(8);
    expect(hammingDistance(1n << 63n, 0n)).toBe(1);
    expect(() => phashFromHex('xyz')).toThrow();
    expect(() => dctPhash(new Float64Array(10))).toThrow();
  });

  it('names its algorithm and geometry in the version string', () => {
    expect(PHASH_VERSION).toMatch(/^dct64-median-dc\/v1\+crop-deskew-v\d+$/);
  });
});
