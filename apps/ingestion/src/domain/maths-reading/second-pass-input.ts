import sharp from 'sharp';
import type { NormalisedImage } from '../image-normalisation.js';

/** Share of the pixels, at each end of the histogram, taken as the ink's tone: text covers a few percent of a page. */
const INK_TAIL = 0.003;
/** Tones closer than this (0..255) leave nothing to binarise: the rendition is passed on grey. */
const MIN_CONTRAST = 32;

/**
 * The second OCR pass's input: grey, levelled, upscaled further than the first pass (small digits are
 * where the confusions happen) and binarised, so JPEG ringing and uneven light do not blur a `5` into an
 * `s`. The cut is halfway between the page's tone (its median) and the ink's (the far end of the
 * histogram, on whichever side the text is): a stretch to the 1st–99th percentiles first, as before,
 * mistook a darkened page's background for its range when the text covered under 1 % of it, and turned
 * the page black with the letters' resampling halos white (issue 16's "dark" copies, all refused).
 */
export async function binarisedOcrInput(image: NormalisedImage, skewDegrees: number, minWidth = 2200): Promise<Buffer> {
  let pipeline = sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } }).grayscale();
  if (Math.abs(skewDegrees) >= 0.5) pipeline = pipeline.rotate(-skewDegrees, { background: { r: 255, g: 255, b: 255 } });
  const levelled = await pipeline.png().toBuffer({ resolveWithObject: true });
  let next = sharp(levelled.data).grayscale();
  if (levelled.info.width < minWidth) next = next.resize({ width: minWidth, kernel: 'lanczos3' });
  const { data, info } = await next.raw().toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: 1 as const } };
  return sharp(binarised(data), raw).png().toBuffer();
}

/** Dark ink on white, whatever the page's light; a page without contrast is returned as it is. */
export function binarised(gray: Uint8Array): Uint8Array {
  const histogram = new Uint32Array(256);
  for (const v of gray) histogram[v] = (histogram[v] ?? 0) + 1;
  const page = quantile(histogram, gray.length, 0.5);
  const darkest = quantile(histogram, gray.length, INK_TAIL);
  const lightest = quantile(histogram, gray.length, 1 - INK_TAIL);
  const lightInk = lightest - page > page - darkest;
  const ink = lightInk ? lightest : darkest;
  if (Math.abs(page - ink) < MIN_CONTRAST) return gray;
  const cut = (page + ink) / 2;
  const out = new Uint8Array(gray.length);
  for (let i = 0; i < gray.length; i += 1) {
    const v = gray[i] ?? 255;
    out[i] = (lightInk ? v > cut : v < cut) ? 0 : 255;
  }
  return out;
}

function quantile(histogram: Uint32Array, count: number, q: number): number {
  const target = q * count;
  let seen = 0;
  for (let v = 0; v < histogram.length; v += 1) {
    seen += histogram[v] ?? 0;
    if (seen >= target) return v;
  }
  return histogram.length - 1;
}
