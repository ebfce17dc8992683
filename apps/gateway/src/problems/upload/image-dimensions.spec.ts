import sharp from 'sharp';
import { imageDimensions, megapixelsOf } from './image-dimensions.js';
import { ACCEPTED_IMAGE_TYPES, sniffImageType } from './image-upload.js';

const WIDTH = 1234;
const HEIGHT = 567;

function canvas(): ReturnType<typeof sharp> {
  return sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: { r: 250, g: 240, b: 230 } } });
}

const encodings: ReadonlyArray<readonly [string, () => Promise<Buffer>]> = [
  ['png', () => canvas().png().toBuffer()],
  ['jpeg (baseline)', () => canvas().jpeg().toBuffer()],
  ['jpeg (progressive, with EXIF before the frame)', () => canvas().withMetadata({ orientation: 1 }).jpeg({ progressive: true }).toBuffer()],
  ['webp (lossy)', () => canvas().webp({ quality: 50 }).toBuffer()],
  ['webp (lossless)', () => canvas().webp({ lossless: true }).toBuffer()],
  ['webp (extended: alpha)', () => canvas().ensureAlpha(0.5).webp({ quality: 50 }).toBuffer()],
  ['gif', () => canvas().gif().toBuffer()],
  ['tiff', () => canvas().tiff().toBuffer()],
  ['avif', () => canvas().avif({ quality: 30, effort: 0 }).toBuffer()],
];

describe('imageDimensions', () => {
  it.each(encodings)('reads the size of a %s from its header', async (_name, encode) => {
    const bytes = new Uint8Array(await encode());
    const type = sniffImageType(bytes);
    expect(type).toBeDefined();
    expect(imageDimensions(bytes, type!)).toEqual({ width: WIDTH, height: HEIGHT });
  });

  it('gives megapixels', () => {
    expect(megapixelsOf({ width: 4000, height: 3000 })).toBe(12);
  });

  it('says nothing, and never throws, for truncated or corrupt headers', async () => {
    for (const [, encode] of encodings) {
      const bytes = new Uint8Array(await encode());
      const type = sniffImageType(bytes)!;
      for (const cut of [4, 12, 20, 26]) expect(() => imageDimensions(bytes.subarray(0, cut), type)).not.toThrow();
    }
    // A JPEG whose first segment claims a length running past the end.
    expect(imageDimensions(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff, 0x00]), 'image/jpeg')).toBeUndefined();
    // A PNG without its IHDR.
    expect(imageDimensions(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x44, 0x41, 0x54, 0, 0, 1, 0, 0, 0, 1, 0]), 'image/png')).toBeUndefined();
  });

  it('never throws on random bytes behind any accepted signature', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const type of ACCEPTED_IMAGE_TYPES) {
      for (let i = 0; i < 200; i += 1) {
        const bytes = Uint8Array.from({ length: Math.floor(random() * 80) }, () => Math.floor(random() * 256));
        const dims = imageDimensions(bytes, type);
        if (dims !== undefined) expect(dims.width > 0 && dims.height > 0).toBe(true);
      }
    }
  });
});
