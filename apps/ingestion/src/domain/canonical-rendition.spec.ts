import sharp from 'sharp';
import { canonicalRendition } from './canonical-rendition.js';
import { normaliseImage } from './image-normalisation.js';
import { pdqQuality } from './image-quality.js';
import { dctPhash, hammingDistance } from './phash.js';
import { degrade } from './test-support/degrade.js';
import { renderTextImage, SAMPLE_PROBLEM } from './test-support/render-text.js';

async function canonicalHash(png: Buffer): Promise<bigint> {
  return dctPhash((await canonicalRendition(await normaliseImage(png))).hashInput);
}

async function plainHash(png: Buffer): Promise<bigint> {
  const data = await sharp(png).grayscale().resize(32, 32, { fit: 'fill' }).raw().toBuffer();
  return dctPhash(Float32Array.from(data));
}

describe('canonicalRendition', () => {
  let page: Buffer;
  let reference: bigint;

  beforeAll(async () => {
    page = await renderTextImage(SAMPLE_PROBLEM, { decorations: true });
    reference = await canonicalHash(page);
  });

  it.each<[string, (png: Buffer) => Promise<Buffer>]>([
    ['JPEG quality 40', (png) => degrade.jpeg(png, 40)],
    ['half size', (png) => degrade.half(png)],
    ['5 % crop off the top left', (png) => degrade.cropTopLeft(png, 0.05)],
    ['20 % brighter', (png) => degrade.brightness(png, 1.2)],
    ['20 % darker', (png) => degrade.brightness(png, 0.8)],
    ['rotated 3°', (png) => degrade.rotate(png, 3)],
    ['rotated -2°', (png) => degrade.rotate(png, -2)],
    ['noise σ 12', (png) => degrade.noise(png, 12)],
  ])('keeps a copy (%s) a near duplicate', async (_label, transform) => {
    expect(hammingDistance(await canonicalHash(await transform(page)), reference)).toBeLessThan(8);
  });

  it('is what plain pHash lacks: a shifted or tilted copy moves the plain hash far more', async () => {
    const cropped = await degrade.cropTopLeft(page, 0.07);
    const tilted = await degrade.rotate(page, 3);
    const plainReference = await plainHash(page);
    for (const copy of [cropped, tilted]) {
      const canonical = hammingDistance(await canonicalHash(copy), reference);
      const plain = hammingDistance(await plainHash(copy), plainReference);
      expect(canonical).toBeLessThan(plain);
    }
  });

  it('levels the rotation it measured', async () => {
    const rendition = await canonicalRendition(await normaliseImage(await degrade.rotate(page, 3)));
    expect(rendition.skewDegrees).toBeGreaterThan(2.8);
    expect(rendition.skewDegrees).toBeLessThan(3.2);
  });

  it('marks a blank page as having no content', async () => {
    const white = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#fff' } }).png().toBuffer();
    const rendition = await canonicalRendition(await normaliseImage(white));
    expect(rendition.contentBox).toBeNull();
    expect(rendition.contentFraction).toBe(0);
  });

  it('feeds the quality metric a crop of real content', async () => {
    const rendition = await canonicalRendition(await normaliseImage(page));
    expect(pdqQuality(rendition.qualityInput)).toBeGreaterThanOrEqual(90);
  });
});
