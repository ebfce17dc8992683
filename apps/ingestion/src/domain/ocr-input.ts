import sharp from 'sharp';
import type { NormalisedImage } from './image-normalisation.js';

export interface OcrInputOptions {
  /**
   * Narrower images are upscaled to this width before recognition. Tesseract's LSTM reads text best
   * with capital letters 20–40 px tall; a half-size phone screenshot falls well below that.
   */
  readonly minWidth?: number;
  /** Skews smaller than this are left to Tesseract, which copes with them itself. */
  readonly minSkewDegrees?: number;
}

const DEFAULTS = { minWidth: 1600, minSkewDegrees: 0.5 } as const;

/** The rendition OCR reads: grey, levelled by the skew the canonical rendition measured, large enough. */
export async function prepareOcrInput(image: NormalisedImage, skewDegrees: number, options: OcrInputOptions = {}): Promise<Buffer> {
  const minWidth = options.minWidth ?? DEFAULTS.minWidth;
  const minSkew = options.minSkewDegrees ?? DEFAULTS.minSkewDegrees;
  let pipeline = sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } }).grayscale();
  if (Math.abs(skewDegrees) >= minSkew) pipeline = pipeline.rotate(-skewDegrees, { background: { r: 255, g: 255, b: 255 } });
  const rotated = await pipeline.png().toBuffer({ resolveWithObject: true });
  if (rotated.info.width >= minWidth) return rotated.data;
  return sharp(rotated.data).resize({ width: minWidth, kernel: 'lanczos3' }).png().toBuffer();
}
