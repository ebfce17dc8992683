import sharp from 'sharp';
import { histogramQuantile } from '../gray-image.js';
import type { NormalisedImage } from '../image-normalisation.js';

/** Share of the pixels, at each end of the histogram, taken as the ink's tone: text covers a few percent of a page. */
const INK_TAIL = 0.003;
/** A page whose median tone is at least this is light: the 1st–99th percentile stretch finds its range. */
const LIGHT_PAGE = 200;
/** Tones closer than this (0..255) leave nothing to binarise: the rendition is passed on grey. */
const MIN_CONTRAST = 32;

/**
 * The second OCR pass's input: grey, levelled, upscaled further than the first pass (small digits are
 * where the confusions happen) and binarised, so JPEG ringing and uneven light do not blur a `5` into an
 * `s`. A light page is stretched to its 1st–99th percentiles and cut at 150; a darker one is cut between
 * the page's tone (its median) and the ink's (the far end of the histogram, on whichever side the text
 * is): the stretch mistook a darkened page's background for its range when the text covered under 1 %
 * of it, and turned the page black with the letters' resampling halos white (issue 16's "dark" copies).
 */
export async function binarisedOcrInput(image: NormalisedImage, skewDegrees: number, minWidth = 2200): Promise<Buffer> {
  let pipeline = sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } }).grayscale();
  if (Math.abs(skewDegrees) >= 0.5) pipeline = pipeline.rotate(-skewDegrees, { background: { r: 255, g: 255, b: 255 } });
  const levelledPage = await pipeline.png().toBuffer({ resolveWithObject: true });
  let next = sharp(levelledPage.data).grayscale();
  if (levelledPage.info.width < minWidth) next = next.resize({ width: minWidth, kernel: 'lanczos3' });
  const { data, info } = await next.raw().toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: 1 as const } };
  // A light page keeps the stretch and threshold its exponents were measured to read well with.
  if (tones(data).page >= LIGHT_PAGE) return sharp(data, raw).normalise().threshold(150).png().toBuffer();
  return sharp(binarised(data), raw).png().toBuffer();
}

/** The tones of a page and of its ink (the far end of the histogram, on whichever side the text is). */
function tones(gray: Uint8Array): { page: number; ink: number } {
  const histogram = new Uint32Array(256);
  for (const v of gray) histogram[v] = (histogram[v] ?? 0) + 1;
  const page = histogramQuantile(histogram, gray.length, 0.5);
  const darkest = histogramQuantile(histogram, gray.length, INK_TAIL);
  const lightest = histogramQuantile(histogram, gray.length, 1 - INK_TAIL);
  return { page, ink: lightest - page > page - darkest ? lightest : darkest };
}

/** Dark ink on white, whatever the page's light; a page without contrast is returned as it is. */
export function binarised(gray: Uint8Array): Uint8Array {
  const { page, ink } = tones(gray);
  if (Math.abs(page - ink) < MIN_CONTRAST) return gray;
  // 150 of 255 from the ink towards the page: the cut the stretch-then-threshold(150) had on clean pages,
  // where exponents read well (halfway thinned the strokes and lost an exponent's confidence).
  const cut = ink + (150 / 255) * (page - ink);
  const lightInk = ink > page;
  const out = new Uint8Array(gray.length);
  for (let i = 0; i < gray.length; i += 1) {
    const v = gray[i] ?? 255;
    out[i] = (lightInk ? v > cut : v < cut) ? 0 : 255;
  }
  return out;
}

/**
 * An exponent's crop as it is read: a light one as it is (cutting it to black and white cost clean
 * exponents their confidence), a dark one (a darkened photo) cut like a dark page, since a grey patch
 * framed in white is read as a box, or as another digit, not as the digits in it.
 */
export function cropForReading(gray: Uint8Array): Uint8Array {
  return tones(gray).page >= LIGHT_PAGE ? gray : binarised(gray);
}
