import { isLowQuality, LOW_QUALITY_THRESHOLD, pdqQuality } from './image-quality.js';

describe('pdqQuality', () => {
  it('scores a flat buffer 0', () => {
    expect(pdqQuality(new Float32Array(64 * 64).fill(128))).toBe(0);
  });

  it('scores a smooth gradient low: small steps are quantised away', () => {
    const ramp = Float32Array.from({ length: 64 * 64 }, (_, i) => ((i % 64) * 255) / 63);
    expect(pdqQuality(ramp)).toBeLessThan(LOW_QUALITY_THRESHOLD);
    expect(isLowQuality(pdqQuality(ramp))).toBe(true);
  });

  it('scores busy structure high, capped at 100', () => {
    const checker = Float32Array.from({ length: 64 * 64 }, (_, i) => ((Math.floor(i / 64) + (i % 64)) % 2 === 0 ? 0 : 255));
    expect(pdqQuality(checker)).toBe(100);
    const stripes = Float32Array.from({ length: 64 * 64 }, (_, i) => (Math.floor((i % 64) / 8) % 2 === 0 ? 30 : 220));
    expect(pdqQuality(stripes)).toBeGreaterThanOrEqual(LOW_QUALITY_THRESHOLD);
  });

  it('refuses a buffer of the wrong size', () => {
    expect(() => pdqQuality(new Float32Array(10))).toThrow();
  });
});
