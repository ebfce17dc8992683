import sharp from 'sharp';
import type { NormalisedImage } from '../image-normalisation.js';

/**
 * The second OCR pass's input: grey, levelled, upscaled further than the first pass (small digits are
 * where the confusions happen), contrast-stretched and binarised, so JPEG ringing and uneven light do
 * not blur a `5` into an `s`.
 */
export async function binarisedOcrInput(image: NormalisedImage, skewDegrees: number, minWidth = 2200): Promise<Buffer> {
  let pipeline = sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } }).grayscale();
  if (Math.abs(skewDegrees) >= 0.5) pipeline = pipeline.rotate(-skewDegrees, { background: { r: 255, g: 255, b: 255 } });
  const levelled = await pipeline.png().toBuffer({ resolveWithObject: true });
  let next = sharp(levelled.data);
  if (levelled.info.width < minWidth) next = next.resize({ width: minWidth, kernel: 'lanczos3' });
  return next.normalise().threshold(150).png().toBuffer();
}
