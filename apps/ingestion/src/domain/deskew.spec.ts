import sharp from 'sharp';
import { findContentBox } from './content-crop.js';
import { estimateSkewDegrees } from './deskew.js';
import type { GrayImage } from './gray-image.js';
import { degrade } from './test-support/degrade.js';
import { renderTextImage, SAMPLE_PROBLEM } from './test-support/render-text.js';

async function skewOf(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png).grayscale().resize({ width: 512, height: 512, fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  const image: GrayImage = { width: info.width, height: info.height, data: new Uint8Array(data) };
  const box = findContentBox(image);
  if (box === null) throw new Error('blank');
  return estimateSkewDegrees(image, box, box.background, Math.max(32, box.peakContrast));
}

describe('estimateSkewDegrees', () => {
  it('reports 0 for an upright page', async () => {
    expect(await skewOf(await renderTextImage(SAMPLE_PROBLEM))).toBe(0);
  });

  it.each([2, -2, 3, -3, 4.5])('measures a %d° rotation within 0.15°', async (degrees) => {
    const rotated = await degrade.rotate(await renderTextImage(SAMPLE_PROBLEM), degrees);
    expect(Math.abs((await skewOf(rotated)) - degrees)).toBeLessThanOrEqual(0.15);
  });

  it('stays put on content without lines of text', async () => {
    const disc = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><rect width="100%" height="100%" fill="#fff"/><circle cx="200" cy="200" r="120" fill="#222"/></svg>',
    );
    expect(await skewOf(await sharp(disc).png().toBuffer())).toBe(0);
  });
});
