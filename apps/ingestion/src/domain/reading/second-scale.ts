import sharp from 'sharp';
import { IMAGE_DEFAULTS, type NormalisedImage } from '../image-normalisation.js';
import { normaliseText } from '../text-normalisation.js';

/**
 * The scale a refused page is read again at (issue 25): twice as large where the page stays within the
 * normalised rendition's bound, else half. A degraded copy's doubts are in good part its resampling's
 * (a thin stroke grey at one scale and broken at the ink's halfway cut, a glyph read unsure at the
 * recogniser's 48 px): measured on the reading bench's refused copies (seeds 7919 and 2511), a second
 * read at 2× settled 20 of 75, at ½ 12 (most of them upscaled copies, which 2× would push past the bound).
 */
export function secondScale(width: number, height: number, maxSide: number = IMAGE_DEFAULTS.maxDimension): number {
  return 2 * Math.max(width, height) <= maxSide ? 2 : 0.5;
}

/** The page resampled `scale` times (Lanczos), as the rendition every read starts from. */
export async function rescaled(image: NormalisedImage, scale: number): Promise<NormalisedImage> {
  const width = Math.max(1, Math.round(image.width * scale));
  const { data, info } = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize({ width, kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).png().toBuffer();
  return { sourceType: image.sourceType, width: info.width, height: info.height, rgb: data, png };
}

/**
 * What two readings of one page must share for the second to stand where the first was refused: the
 * same text once normalised, apart from spacing, exponent marks and brackets (the first read's raw text
 * writes "n²" flat and "√36" bare, where its judged reading writes "n^2" and "sqrt(36)"), "×" taken as
 * the "x" it is drawn as. A second reading of other words or digits is a second opinion that disagrees,
 * never an answer: measured, a 0.75× read of "5x + 34 = 30" that lost its "x" passed the judge on its own.
 */
export function sameReading(first: string, second: string): boolean {
  const skeleton = (text: string): string => normaliseText(text).replace(/[\s^()]/g, '').replace(/\*/g, 'x');
  return skeleton(first) === skeleton(second);
}
