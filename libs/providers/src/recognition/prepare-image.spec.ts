import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { prepareImageForRecognition, UnsupportedImageError } from './prepare-image.js';

describe('prepareImageForRecognition', () => {
  it('keeps a small PNG as PNG and turns WebP into JPEG', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 1 } } }).png().toBuffer();
    expect(await prepareImageForRecognition(png)).toMatchObject({ format: 'png', width: 40, height: 30 });
    const webp = await sharp({ create: { width: 50, height: 20, channels: 3, background: '#336699' } }).webp().toBuffer();
    const prepared = await prepareImageForRecognition(webp);
    expect(prepared.format).toBe('jpeg');
    expect((await sharp(prepared.bytes).metadata()).format).toBe('jpeg');
  });

  it('brings a noisy image over the limit under it, and applies EXIF orientation', async () => {
    const noise = await sharp(randomBytes(600 * 600 * 3), { raw: { width: 600, height: 600, channels: 3 } }).png().toBuffer();
    const limit = 200 * 1024;
    expect(noise.length).toBeGreaterThan(limit);
    const prepared = await prepareImageForRecognition(noise, limit);
    expect(prepared.bytes.length).toBeLessThanOrEqual(limit);
    expect(prepared.format).toBe('jpeg');

    const rotated = await sharp({ create: { width: 80, height: 20, channels: 3, background: '#ffffff' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    expect(await prepareImageForRecognition(rotated)).toMatchObject({ width: 20, height: 80 });
  });

  it('refuses bytes that are not an image', async () => {
    await expect(prepareImageForRecognition(Buffer.from('<html>not an image</html>'))).rejects.toBeInstanceOf(UnsupportedImageError);
  });
});
