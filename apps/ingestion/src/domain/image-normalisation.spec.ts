import sharp from 'sharp';
import { normaliseImage, pdfSupported } from './image-normalisation.js';
import { MediaRejectedError, type RejectionReason } from './media-rejection.js';

async function reasonOf(promise: Promise<unknown>): Promise<RejectionReason> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MediaRejectedError) return error.reason;
    throw error;
  }
  throw new Error('expected a rejection');
}

function pixel(rgb: Buffer, width: number, x: number, y: number): number[] {
  const i = (y * width + x) * 3;
  return [rgb[i] ?? -1, rgb[i + 1] ?? -1, rgb[i + 2] ?? -1];
}

describe('normaliseImage', () => {
  it('applies EXIF orientation so the pixels are upright', async () => {
    // A 40×20 image, red on the left half, stored with orientation 6 (display rotated 90° clockwise).
    const left = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const stored = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#0000ff' } })
      .composite([{ input: left, left: 0, top: 0 }])
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const image = await normaliseImage(stored);
    expect([image.width, image.height]).toEqual([20, 40]);
    // After a clockwise quarter turn the red left half is on top.
    expect(pixel(image.rgb, image.width, 10, 5)[0]).toBeGreaterThan(200);
    expect(pixel(image.rgb, image.width, 10, 35)[2]).toBeGreaterThan(200);
  });

  it('flattens transparency onto white', async () => {
    const transparent = await sharp({ create: { width: 10, height: 10, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const image = await normaliseImage(transparent);
    expect(pixel(image.rgb, image.width, 5, 5)).toEqual([255, 255, 255]);
    expect(image.rgb.length).toBe(10 * 10 * 3);
  });

  it('bounds the size, keeping the aspect ratio, and never enlarges', async () => {
    const big = await sharp({ create: { width: 3000, height: 1500, channels: 3, background: '#888' } }).png().toBuffer();
    const image = await normaliseImage(big, { maxDimension: 1000 });
    expect([image.width, image.height]).toEqual([1000, 500]);
    const small = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#888' } }).webp().toBuffer();
    expect(await normaliseImage(small, { maxDimension: 1000 })).toMatchObject({ width: 300, height: 100, sourceType: 'webp' });
  });

  it('produces a PNG of the same pixels for storage', async () => {
    const input = await sharp({ create: { width: 16, height: 8, channels: 3, background: '#123456' } }).jpeg().toBuffer();
    const image = await normaliseImage(input);
    const decoded = await sharp(image.png).raw().toBuffer();
    expect(decoded.equals(image.rgb)).toBe(true);
  });

  it('decodes AVIF (HEIF with the AV1 codec this build carries)', async () => {
    const avif = await sharp({ create: { width: 32, height: 16, channels: 3, background: '#00ff00' } }).avif().toBuffer();
    expect(await normaliseImage(avif)).toMatchObject({ sourceType: 'heif', width: 32, height: 16 });
  });

  it('rejects with typed reasons', async () => {
    expect(await reasonOf(normaliseImage(new Uint8Array(0)))).toBe('empty');
    expect(await reasonOf(normaliseImage(Buffer.from('just some text')))).toBe('unsupported_type');
    const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).gif().toBuffer();
    expect(await reasonOf(normaliseImage(gif))).toBe('unsupported_type');
    expect(await reasonOf(normaliseImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd"/></svg>')))).toBe(
      'unsupported_type',
    );
    const jpeg = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#f00' } }).jpeg().toBuffer();
    expect(await reasonOf(normaliseImage(jpeg.subarray(0, 200)))).toBe('unreadable');
    expect(await reasonOf(normaliseImage(jpeg, { maxInputBytes: 100 }))).toBe('too_large');
    expect(await reasonOf(normaliseImage(jpeg, { maxInputPixels: 1000 }))).toBe('too_large');
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF');
    expect(await reasonOf(normaliseImage(pdf))).toBe(pdfSupported() ? 'unreadable' : 'unsupported_type');
  });

  it('rejects a HEIC it cannot decode as an unsupported type or as unreadable, never a crash', async () => {
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64)]);
    expect(['unsupported_type', 'unreadable']).toContain(await reasonOf(normaliseImage(heic)));
  });
});
