import sharp, { type Sharp } from 'sharp';
import { sniffMediaType } from './media-type.js';

const blank = (): Sharp => sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } });

describe('sniffMediaType', () => {
  it('recognises images by their bytes', async () => {
    expect(sniffMediaType(await blank().png().toBuffer())).toEqual({ kind: 'png' });
    expect(sniffMediaType(await blank().jpeg().toBuffer())).toEqual({ kind: 'jpeg' });
    expect(sniffMediaType(await blank().webp().toBuffer())).toEqual({ kind: 'webp' });
    expect(sniffMediaType(await blank().avif().toBuffer())).toEqual({ kind: 'heif', brand: 'avif' });
    expect(sniffMediaType(await blank().gif().toBuffer())).toEqual({ kind: 'gif' });
    expect(sniffMediaType(await blank().tiff().toBuffer())).toEqual({ kind: 'tiff' });
  });

  it('recognises HEIC by its ftyp brand, major or compatible', () => {
    const box = (major: string, compatible: string[]): Buffer => {
      const body = Buffer.from(`ftyp${major}\0\0\0\0${compatible.join('')}`, 'latin1');
      const size = Buffer.alloc(4);
      size.writeUInt32BE(body.length + 4);
      return Buffer.concat([size, body]);
    };
    expect(sniffMediaType(box('heic', ['mif1', 'heic']))).toEqual({ kind: 'heif', brand: 'heic' });
    expect(sniffMediaType(box('mp42', ['isom', 'heix']))).toEqual({ kind: 'heif', brand: 'heix' });
    expect(sniffMediaType(box('mp42', ['isom', 'avc1']))).toEqual({ kind: 'unknown' });
  });

  it('recognises PDF and SVG, and nothing else', () => {
    expect(sniffMediaType(Buffer.from('%PDF-1.7\n'))).toEqual({ kind: 'pdf' });
    expect(sniffMediaType(Buffer.from('  <svg xmlns="http://www.w3.org/2000/svg"/>'))).toEqual({ kind: 'svg' });
    expect(sniffMediaType(Buffer.from('<?xml version="1.0"?><svg/>'))).toEqual({ kind: 'svg' });
    expect(sniffMediaType(Buffer.from('hello world'))).toEqual({ kind: 'unknown' });
    expect(sniffMediaType(new Uint8Array(0))).toEqual({ kind: 'unknown' });
  });
});
