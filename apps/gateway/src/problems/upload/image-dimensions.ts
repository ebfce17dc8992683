import type { AcceptedImageType } from './image-upload.js';

export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
}

/**
 * An image's width and height from its header, without decoding it: what admission charges an upload
 * in megapixels before ingestion decodes it. Undefined when the header does not say (truncated,
 * corrupt, or a layout this reader does not follow); the caller then assumes the largest image
 * ingestion accepts. Every read is bounds-checked: no input makes it throw.
 */
export function imageDimensions(bytes: Uint8Array, type: AcceptedImageType): ImageDimensions | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dims = READERS[type](bytes, view);
  return dims !== undefined && dims.width > 0 && dims.height > 0 ? dims : undefined;
}

/** Width × height in megapixels (1 MP = 1,000,000 pixels). */
export function megapixelsOf(dims: ImageDimensions): number {
  return (dims.width * dims.height) / 1e6;
}

type Reader = (bytes: Uint8Array, view: DataView) => ImageDimensions | undefined;

const u8 = (view: DataView, at: number): number | undefined => (at >= 0 && at + 1 <= view.byteLength ? view.getUint8(at) : undefined);
const u16 = (view: DataView, at: number, little: boolean): number | undefined => (at >= 0 && at + 2 <= view.byteLength ? view.getUint16(at, little) : undefined);
const u24le = (view: DataView, at: number): number | undefined => (at >= 0 && at + 3 <= view.byteLength ? view.getUint16(at, true) + (view.getUint8(at + 2) << 16) : undefined);
const u32 = (view: DataView, at: number, little: boolean): number | undefined => (at >= 0 && at + 4 <= view.byteLength ? view.getUint32(at, little) : undefined);
const tag = (bytes: Uint8Array, at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4));

function both(width: number | undefined, height: number | undefined): ImageDimensions | undefined {
  return width === undefined || height === undefined ? undefined : { width, height };
}

/** PNG: the IHDR chunk comes first, width and height big-endian. */
const png: Reader = (bytes, view) => (tag(bytes, 12) === 'IHDR' ? both(u32(view, 16, false), u32(view, 20, false)) : undefined);

/** GIF: the logical screen's width and height, little-endian, right after the signature. */
const gif: Reader = (_bytes, view) => both(u16(view, 6, true), u16(view, 8, true));

/** JPEG: the first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC), walking the segments. */
const jpeg: Reader = (_bytes, view) => {
  let at = 2;
  while (at + 4 <= view.byteLength) {
    if (u8(view, at) !== 0xff) return undefined;
    const marker = u8(view, at + 1)!;
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // Markers without a length (TEM, RSTn, SOI).
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined;
    const length = u16(view, at + 2, false);
    if (length === undefined || length < 2) return undefined;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return both(u16(view, at + 7, false), u16(view, at + 5, false));
    }
    at += 2 + length;
  }
  return undefined;
};

/** WebP: the first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended, with the canvas size). */
const webp: Reader = (bytes, view) => {
  const chunk = tag(bytes, 12);
  if (chunk === 'VP8 ') {
    // Frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
    if (u8(view, 23) !== 0x9d || u8(view, 24) !== 0x01 || u8(view, 25) !== 0x2a) return undefined;
    const w = u16(view, 26, true);
    const h = u16(view, 28, true);
    return both(w === undefined ? undefined : w & 0x3fff, h === undefined ? undefined : h & 0x3fff);
  }
  if (chunk === 'VP8L') {
    if (u8(view, 20) !== 0x2f) return undefined;
    const bits = u32(view, 21, true);
    return bits === undefined ? undefined : { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    const w = u24le(view, 24);
    const h = u24le(view, 27);
    return both(w === undefined ? undefined : w + 1, h === undefined ? undefined : h + 1);
  }
  return undefined;
};

/** TIFF: tags 256 (width) and 257 (height) of the first image directory. */
const tiff: Reader = (_bytes, view) => {
  const little = u8(view, 0) === 0x49;
  const directory = u32(view, 4, little);
  if (directory === undefined) return undefined;
  const entries = u16(view, directory, little);
  if (entries === undefined) return undefined;
  let width: number | undefined;
  let height: number | undefined;
  for (let i = 0; i < entries; i += 1) {
    const at = directory + 2 + i * 12;
    const id = u16(view, at, little);
    const fieldType = u16(view, at + 2, little);
    if (id === undefined || fieldType === undefined) return undefined;
    // SHORT (3) or LONG (4), stored in the entry itself.
    const value = fieldType === 3 ? u16(view, at + 8, little) : fieldType === 4 ? u32(view, at + 8, little) : undefined;
    if (id === 256) width = value;
    if (id === 257) height = value;
  }
  return both(width, height);
};

/** AVIF and HEIC: the first image spatial extents property (`ispe`: version/flags, then width and height). */
const isobmff: Reader = (bytes, view) => {
  // The box sits in the meta box near the start; a bounded scan keeps a hostile file cheap.
  const end = Math.min(bytes.length - 12, 64 * 1024);
  for (let at = 4; at < end; at += 1) {
    if (bytes[at] === 0x69 && tag(bytes, at) === 'ispe') return both(u32(view, at + 8, false), u32(view, at + 12, false));
  }
  return undefined;
};

const READERS: Readonly<Record<AcceptedImageType, Reader>> = {
  'image/png': png,
  'image/gif': gif,
  'image/jpeg': jpeg,
  'image/webp': webp,
  'image/tiff': tiff,
  'image/avif': isobmff,
  'image/heic': isobmff,
};
