import { loadSharp } from '../shared/load-sharp.js';
import { MAX_PROBLEM_IMAGE_PIXELS } from '@openpaw/contracts';
import { type OcrBox, OcrInputError } from './port.js';

/** Decoded pixels, 3 channels (RGB), row-major. */
export interface RgbRaster {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

export interface DecodeLimits {
  /** Larger images are refused before decoding (sharp's own pixel limit guards the decoder too). */
  readonly maxPixels: number;
  /** Smaller sides cannot hold a glyph. */
  readonly minSide: number;
}

export const DEFAULT_DECODE_LIMITS: DecodeLimits = { maxPixels: MAX_PROBLEM_IMAGE_PIXELS, minSide: 8 };

/** Decodes an encoded image to RGB (EXIF orientation applied, alpha flattened on white, first frame). */
export async function decodeRgb(image: Uint8Array, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): Promise<RgbRaster> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(image, { limitInputPixels: limits.maxPixels, failOn: 'error' })
      .rotate()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.width < limits.minSide || info.height < limits.minSide) throw new OcrInputError(`image is ${info.width}×${info.height} px; at least ${limits.minSide} px a side is needed to hold text`);
    return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  } catch (error) {
    if (error instanceof OcrInputError) throw error;
    throw new OcrInputError(`image cannot be decoded: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The raster enlarged `scale` times (Lanczos, as the page would be resized before encoding). */
export async function enlargeRgb(raster: RgbRaster, scale: number): Promise<RgbRaster> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 3 } })
    .resize({ width: Math.round(raster.width * scale), kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

/** Bilinear resize of a region of `src` (x0,y0,w,h) to `outW`×`outH`, calling `emit(x, y, r, g, b)` per output pixel. */
export function resampleRegion(
  src: RgbRaster,
  region: { readonly x0: number; readonly y0: number; readonly width: number; readonly height: number },
  outW: number,
  outH: number,
  emit: (x: number, y: number, r: number, g: number, b: number) => void,
): void {
  const sx = region.width / outW;
  const sy = region.height / outH;
  for (let y = 0; y < outH; y += 1) {
    const fy = Math.min(src.height - 1, Math.max(0, region.y0 + (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(src.height - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < outW; x += 1) {
      const fx = Math.min(src.width - 1, Math.max(0, region.x0 + (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(src.width - 1, x0 + 1);
      const wx = fx - x0;
      const a = (y0 * src.width + x0) * 3;
      const b = (y0 * src.width + x1) * 3;
      const c = (y1 * src.width + x0) * 3;
      const d = (y1 * src.width + x1) * 3;
      const channel = (k: number): number =>
        (src.data[a + k]! * (1 - wx) + src.data[b + k]! * wx) * (1 - wy) + (src.data[c + k]! * (1 - wx) + src.data[d + k]! * wx) * wy;
      emit(x, y, channel(0), channel(1), channel(2));
    }
  }
}

/** Luma of one pixel (BT.601), 0..255. */
export function lumaAt(src: RgbRaster, x: number, y: number): number {
  const i = (y * src.width + x) * 3;
  return 0.299 * src.data[i]! + 0.587 * src.data[i + 1]! + 0.114 * src.data[i + 2]!;
}

/** Rotates a raster by a multiple of 90° clockwise. */
export function rotateQuarterTurns(src: RgbRaster, turns: 0 | 1 | 2 | 3): RgbRaster {
  if (turns === 0) return src;
  const width = turns === 2 ? src.width : src.height;
  const height = turns === 2 ? src.height : src.width;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < src.height; y += 1) {
    for (let x = 0; x < src.width; x += 1) {
      const [nx, ny] = turns === 1 ? [src.height - 1 - y, x] : turns === 2 ? [src.width - 1 - x, src.height - 1 - y] : [y, src.width - 1 - x];
      const from = (y * src.width + x) * 3;
      const to = (ny * width + nx) * 3;
      data[to] = src.data[from]!;
      data[to + 1] = src.data[from + 1]!;
      data[to + 2] = src.data[from + 2]!;
    }
  }
  return { width, height, data };
}

/** One 8-connected region of a grid: its label in `ConnectedComponents.label` and its bounds (inclusive). */
export interface GridComponent {
  readonly label: number;
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

export interface ConnectedComponents {
  /** Per cell (row-major), its component's label (1, 2, ...), or 0 for a cell that is off. */
  readonly label: Int32Array;
  readonly components: readonly GridComponent[];
}

/**
 * The 8-connected regions of the cells of a `width` × `height` grid for which `on(index)` holds
 * (index = y × width + x), found by flood fill with an explicit stack (no recursion depth limit).
 */
export function connectedComponents(width: number, height: number, on: (index: number) => boolean): ConnectedComponents {
  const label = new Int32Array(width * height);
  const components: GridComponent[] = [];
  const stack: number[] = [];
  for (let start = 0; start < width * height; start += 1) {
    if (label[start] !== 0 || !on(start)) continue;
    const id = components.length + 1;
    label[start] = id;
    stack.push(start);
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    while (stack.length > 0) {
      const p = stack.pop()!;
      const px = p % width;
      const py = (p - px) / width;
      x0 = Math.min(x0, px);
      x1 = Math.max(x1, px);
      y0 = Math.min(y0, py);
      y1 = Math.max(y1, py);
      for (let dy = -1; dy <= 1; dy += 1) {
        for (let dx = -1; dx <= 1; dx += 1) {
          const nx = px + dx;
          const ny = py + dy;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const q = ny * width + nx;
          if (label[q] === 0 && on(q)) {
            label[q] = id;
            stack.push(q);
          }
        }
      }
    }
    components.push({ label: id, x0, y0, x1, y1 });
  }
  return { label, components };
}

/** A region of paper in an ink mask (`backgroundRegions`), its bounds inclusive. */
export interface PaperRegion {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
  readonly area: number;
  readonly touchesBorder: boolean;
}

/** The 4-connected regions of the paper (no ink) in a w × h mask (`inkMask`): those not touching its border are enclosed by ink (a glyph's counters). */
export function backgroundRegions(ink: Uint8Array, w: number, h: number): PaperRegion[] {
  const seen = new Uint8Array(w * h);
  const regions: PaperRegion[] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start += 1) {
    if (ink[start] === 1 || seen[start] === 1) continue;
    seen[start] = 1;
    stack.push(start);
    let [x0, y0, x1, y1, area, touchesBorder] = [w, h, -1, -1, 0, false];
    while (stack.length > 0) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      [x0, y0, x1, y1, area] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y), area + 1];
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) touchesBorder = true;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1]) {
        if (j >= 0 && ink[j] === 0 && seen[j] === 0) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
    regions.push({ x0, y0, x1, y1, area, touchesBorder });
  }
  return regions;
}

/**
 * The box's pixels darker than halfway between its darkest and lightest (1 = ink); undefined when it has
 * too little contrast to hold ink. `darkerThan` moves the cut: the share of the contrast below the
 * lightest a pixel must reach (0.5, halfway; less takes in the fainter, antialiased edges of strokes).
 */
export function inkMask(image: RgbRaster, blob: { readonly x0: number; readonly y0: number; readonly x1: number; readonly y1: number }, darkerThan = 0.5): Uint8Array | undefined {
  const w = blob.x1 - blob.x0;
  const h = blob.y1 - blob.y0;
  const luma = new Float32Array(w * h);
  let darkest = 255;
  let lightest = 0;
  for (let y = 0; y < h; y += 1) {
    for (let x = 0; x < w; x += 1) {
      const v = lumaAt(image, blob.x0 + x, blob.y0 + y);
      luma[y * w + x] = v;
      darkest = Math.min(darkest, v);
      lightest = Math.max(lightest, v);
    }
  }
  if (lightest - darkest < MIN_CONTRAST) return undefined;
  const cut = lightest - darkerThan * (lightest - darkest);
  return Uint8Array.from(luma, (v) => (v < cut ? 1 : 0));
}

/** Less contrast than this (of 255) is a blank or a smudge, not ink. */
const MIN_CONTRAST = 40;

/** Whether two blobs of a line's ink are pieces of one glyph (`inkBlobs`). */
export type Joined = (a: OcrBox, b: OcrBox) => boolean;

/**
 * A stroke's faint ink: pixels this share of the contrast darker than the lightest (`inkMask`). Blobs
 * it joins are one glyph whose thin stroke fell under the halfway cut; between two glyphs there is
 * paper, lighter than this.
 */
const FAINT_INK = 0.2;

/**
 * The line's ink blobs (`inkComponents`), and which of them are pieces of one glyph: joined by faint
 * ink (`FAINT_INK`). Issue 25, measured: KaTeX's maths-italic "n" breaks at its thin shoulder into two
 * blobs (its stem; its arch and second stem) at the halfway cut, so half of it was ink "read as no
 * character" and the page refused (seed 7919, "8n − 31 ≥ 41" and 8 of its 10 copies).
 */
export function inkBlobs(image: RgbRaster, box: OcrBox): { blobs: OcrBox[]; joined: Joined } {
  const ink = inkMask(image, box);
  if (ink === undefined) return { blobs: [], joined: () => false };
  const width = box.x1 - box.x0;
  const height = box.y1 - box.y0;
  const strong = connectedComponents(width, height, (i) => ink[i] === 1);
  const blobs: OcrBox[] = [];
  const labelOf = new Map<OcrBox, number>();
  for (const { label, x0, y0, x1, y1 } of strong.components) {
    // Specks (noise, JPEG ringing) are not ink. A blob's bounds are inclusive, an OcrBox's ends exclusive.
    if ((x1 - x0 + 1) * (y1 - y0 + 1) < 4) continue;
    const blob = { x0: box.x0 + x0, y0: box.y0 + y0, x1: box.x0 + x1 + 1, y1: box.y0 + y1 + 1 };
    blobs.push(blob);
    labelOf.set(blob, label);
  }
  // Measured once, on the first question (the page's ink around its lines asks none).
  let faintOf: Map<number, number> | undefined;
  const joinedAs = (blob: OcrBox): number | undefined => {
    if (faintOf === undefined) {
      faintOf = new Map();
      const faint = inkMask(image, box, FAINT_INK);
      const faintLabel = connectedComponents(width, height, (i) => faint?.[i] === 1).label;
      // Every pixel of a blob is faint ink too: any one of them names the faint component it lies in.
      for (let i = 0; i < strong.label.length; i += 1) if (strong.label[i] !== 0 && !faintOf.has(strong.label[i]!)) faintOf.set(strong.label[i]!, faintLabel[i]!);
    }
    return faintOf.get(labelOf.get(blob) ?? 0);
  };
  return { blobs, joined: (a, b) => joinedAs(a) !== undefined && joinedAs(a) === joinedAs(b) };
}

/**
 * The line's ink as connected blobs (8-way) of pixels darker than halfway between its darkest and
 * lightest, in image pixels: what places each character's rows (a raised exponent, a stacked fraction).
 */
export function inkComponents(image: RgbRaster, box: OcrBox): OcrBox[] {
  return inkBlobs(image, box).blobs;
}
