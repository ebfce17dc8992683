import sharp, { type Sharp } from 'sharp';
import { MAX_PROBLEM_IMAGE_PIXELS } from '@openpaw/contracts';
import { MediaRejectedError } from './media-rejection.js';
import { type SniffedMediaType, sniffMediaType } from './media-type.js';

export interface ImageNormalisationOptions {
  /** Largest encoded input accepted, in bytes. */
  readonly maxInputBytes?: number;
  /** Largest decoded input accepted, in pixels; guards against decompression bombs. */
  readonly maxInputPixels?: number;
  /** Longest side of the normalised rendition; larger inputs are downscaled, smaller ones kept. */
  readonly maxDimension?: number;
}

/** The one rendition every later step (hashing, OCR, storage) works from. */
export interface NormalisedImage {
  readonly sourceType: Exclude<SniffedMediaType['kind'], 'unknown'>;
  readonly width: number;
  readonly height: number;
  /** Upright, alpha flattened on white, sRGB, 3 channels, 8 bits, row-major. */
  readonly rgb: Buffer;
  /** The same pixels as PNG, for blob storage and OCR. */
  readonly png: Buffer;
}

export const IMAGE_DEFAULTS = {
  maxInputBytes: 20 * 1024 * 1024,
  maxInputPixels: MAX_PROBLEM_IMAGE_PIXELS,
  maxDimension: 2048,
} as const;

/** Reports whether this build of sharp can rasterise PDF (libvips with poppler or pdfium). */
export function pdfSupported(): boolean {
  return sharp.format.pdf?.input.buffer === true;
}

/**
 * Decodes an uploaded or fetched image into the canonical rendition: EXIF orientation applied, alpha
 * flattened onto white (a transparent PNG and its screenshot must hash the same), sRGB, bounded size.
 * Every refusal is a `MediaRejectedError` with its reason code.
 */
export async function normaliseImage(bytes: Uint8Array, options: ImageNormalisationOptions = {}): Promise<NormalisedImage> {
  const maxInputBytes = options.maxInputBytes ?? IMAGE_DEFAULTS.maxInputBytes;
  const maxInputPixels = options.maxInputPixels ?? IMAGE_DEFAULTS.maxInputPixels;
  const maxDimension = options.maxDimension ?? IMAGE_DEFAULTS.maxDimension;
  if (bytes.length === 0) throw new MediaRejectedError('empty', 'no bytes');
  if (bytes.length > maxInputBytes) throw new MediaRejectedError('too_large', `${bytes.length} bytes, limit ${maxInputBytes}`);

  const sniffed = sniffMediaType(bytes);
  const sourceType = acceptedType(sniffed);
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  try {
    // `failOn: 'error'` refuses truncated or corrupt data instead of rendering grey garbage we would
    // then hash and match; `pages: 1` takes the first page of a PDF or multi-image HEIF.
    const decoder = (): Sharp => sharp(input, { limitInputPixels: maxInputPixels, failOn: 'error', pages: 1, page: 0 });
    const meta = await decoder().metadata();
    if ((meta.width ?? 0) === 0 || (meta.height ?? 0) === 0) throw new MediaRejectedError('empty', 'image has no pixels');
    const { data, info } = await decoder()
      .autoOrient()
      .flatten({ background: '#ffffff' })
      .resize({ width: maxDimension, height: maxDimension, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new MediaRejectedError('unreadable', `unexpected channel count ${info.channels}`);
    const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
      .png({ compressionLevel: 6, adaptiveFiltering: false })
      .toBuffer();
    return { sourceType, width: info.width, height: info.height, rgb: data, png };
  } catch (error) {
    if (error instanceof MediaRejectedError) throw error;
    throw classifyDecodeError(error, sniffed);
  }
}

function acceptedType(sniffed: SniffedMediaType): NormalisedImage['sourceType'] {
  switch (sniffed.kind) {
    case 'png':
    case 'jpeg':
    case 'webp':
    case 'heif':
      return sniffed.kind;
    case 'pdf':
      if (pdfSupported()) return 'pdf';
      throw new MediaRejectedError('unsupported_type', 'PDF rasterisation is not available in this build of sharp');
    case 'gif':
    case 'tiff':
    case 'svg':
      // SVG in particular can reference other files; it is never rendered from user input.
      throw new MediaRejectedError('unsupported_type', `${sniffed.kind} is not an accepted problem format`);
    case 'unknown':
      throw new MediaRejectedError('unsupported_type', 'bytes are not a recognised image or PDF');
  }
}

function classifyDecodeError(error: unknown, sniffed: SniffedMediaType): MediaRejectedError {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return new MediaRejectedError('too_large', message);
  // The prebuilt libvips carries the AV1 (AVIF) decoder but no HEVC one, so classic HEIC photos fail
  // here; that is a missing codec, not a broken file.
  if (sniffed.kind === 'heif' && /compression format|unsupported|no decoding plugin|not supported/i.test(message)) {
    return new MediaRejectedError('unsupported_type', `HEIF brand ${sniffed.brand} cannot be decoded by this build: ${message}`);
  }
  return new MediaRejectedError('unreadable', message);
}
