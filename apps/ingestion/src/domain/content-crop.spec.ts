import sharp from 'sharp';
import { findContentBox } from './content-crop.js';
import type { GrayImage } from './gray-image.js';
import { degrade } from './test-support/degrade.js';
import { renderTextImage, SAMPLE_PROBLEM } from './test-support/render-text.js';

async function gray(png: Buffer): Promise<GrayImage> {
  const { data, info } = await sharp(png).grayscale().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data) };
}

describe('findContentBox', () => {
  it('returns null for blank and near-uniform pages', async () => {
    const white = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#fff' } }).png().toBuffer();
    expect(findContentBox(await gray(white))).toBeNull();
    expect(findContentBox(await gray(await degrade.noise(white, 10)))).toBeNull();
    const faint = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#f0f0f0' } }).jpeg({ quality: 30 }).toBuffer();
    expect(findContentBox(await gray(faint))).toBeNull();
  });

  it('boxes the text, the same way under JPEG noise, sensor noise and lighting', async () => {
    const page = await renderTextImage(SAMPLE_PROBLEM);
    const reference = findContentBox(await gray(page));
    expect(reference).not.toBeNull();
    if (reference === null) return;
    // The text starts at x = 60 and the first baseline is at y = 92 with 32 px glyphs.
    expect(reference.left).toBeGreaterThan(50);
    expect(reference.left).toBeLessThan(66);
    expect(reference.top).toBeGreaterThan(60);
    expect(reference.top).toBeLessThan(72);
    for (const copy of [await degrade.jpeg(page, 30), await degrade.noise(page, 15), await degrade.brightness(page, 0.8)]) {
      const box = findContentBox(await gray(copy));
      expect(box).not.toBeNull();
      expect(Math.abs((box?.left ?? 0) - reference.left)).toBeLessThanOrEqual(2);
      expect(Math.abs((box?.top ?? 0) - reference.top)).toBeLessThanOrEqual(2);
      expect(Math.abs((box?.width ?? 0) - reference.width)).toBeLessThanOrEqual(3);
      expect(Math.abs((box?.height ?? 0) - reference.height)).toBeLessThanOrEqual(3);
    }
  });

  it('leaves frames and rules out, so clipping them does not move the box', async () => {
    const decorated = await renderTextImage(SAMPLE_PROBLEM, { decorations: true });
    const plain = await renderTextImage(SAMPLE_PROBLEM);
    const withFrame = findContentBox(await gray(decorated));
    const without = findContentBox(await gray(plain));
    expect(withFrame?.left).toBe(without?.left);
    expect(withFrame?.top).toBe(without?.top);
    expect(withFrame?.width).toBe(without?.width);
  });

  it('ignores a lone speck far from the content', async () => {
    const page = await renderTextImage(SAMPLE_PROBLEM);
    const speck = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } }).png().toBuffer();
    const specked = await sharp(page).composite([{ input: speck, left: 880, top: 230 }]).png().toBuffer();
    const clean = findContentBox(await gray(page));
    const dirty = findContentBox(await gray(specked));
    expect(dirty?.width).toBe(clean?.width);
    expect(dirty?.height).toBe(clean?.height);
  });
});
