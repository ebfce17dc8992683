import { OpenPawError } from '@openpaw/contracts';
import type { Metadata } from 'sharp';
import { loadSharp } from '../shared/load-sharp.js';

/** Rekognition's limit for image bytes sent inline. */
export const MAX_RECOGNITION_BYTES = 5 * 1024 * 1024;
const MAX_SIDE = 4096;

export class UnsupportedImageError extends OpenPawError {
  readonly code = 'unsupported_image';
  override readonly name = 'UnsupportedImageError';
}

export interface PreparedImage {
  readonly bytes: Buffer;
  readonly format: 'jpeg' | 'png';
  readonly width: number;
  readonly height: number;
}

/**
 * Normalises any image sharp reads (JPEG, PNG, WebP, AVIF, HEIF, GIF, TIFF) into what celebrity
 * recognition accepts: upright (EXIF orientation applied), at most 4096 px a side, JPEG or PNG, at most
 * `maxBytes`. PNG stays PNG when it fits; everything else becomes JPEG, re-encoded smaller (quality,
 * then size) until it fits.
 */
export async function prepareImageForRecognition(input: Uint8Array, maxBytes = MAX_RECOGNITION_BYTES): Promise<PreparedImage> {
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    metadata = await sharp(input).metadata();
  } catch (error) {
    throw new UnsupportedImageError(`not a readable image: ${error instanceof Error ? error.message : String(error)}`);
  }
  const upright = (side: number) => sharp(input).rotate().resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
  let side = MAX_SIDE;
  if (metadata.format === 'png') {
    const { data, info } = await upright(side).png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true });
    if (data.length <= maxBytes) return { bytes: data, format: 'png', width: info.width, height: info.height };
  }
  for (let quality = 90; ; ) {
    const { data, info } = await upright(side).flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true }).toBuffer({ resolveWithObject: true });
    if (data.length <= maxBytes) return { bytes: data, format: 'jpeg', width: info.width, height: info.height };
    if (quality > 60) quality -= 15;
    else if (side > 256) side = Math.round(Math.max(info.width, info.height) * 0.75);
    else throw new UnsupportedImageError(`cannot bring the image under ${maxBytes} bytes`);
  }
}
