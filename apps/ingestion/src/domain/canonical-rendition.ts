import sharp from 'sharp';
import { type Box, type ContentBox, findContentBox } from './content-crop.js';
import { estimateSkewDegrees } from './deskew.js';
import type { GrayImage } from './gray-image.js';

export const HASH_SIDE = 32;
export const QUALITY_SIDE = 64;

/** Bumped whenever the geometry steps change, since stored pHashes are only comparable within one. */
export const RENDITION_VERSION = 'crop-deskew-v1';

export interface CanonicalRendition {
  /** 32×32 grey levels of the upright content crop, row-major: the pHash input. */
  readonly hashInput: Float32Array;
  /** 64×64 grey levels of the same crop: the quality metric's input. */
  readonly qualityInput: Float32Array;
  /** Rotation removed, degrees clockwise (0 when upright or when the content has no lines). */
  readonly skewDegrees: number;
  /** Content box in working-image pixels after deskew, or `null` for a blank image. */
  readonly contentBox: Box | null;
  /** Share of the working image the content occupies; tiny marks on an empty page are not hashable. */
  readonly contentFraction: number;
  readonly background: number;
}

export interface RenditionOptions {
  /** Longer side of the working image all geometry is measured on; fixed so copies at any size agree. */
  readonly workingSide?: number;
  /** Margin around the content box, as a share of its longer side. */
  readonly marginFraction?: number;
}

const DEFAULTS = { workingSide: 512, marginFraction: 0.02 } as const;

interface RgbImage {
  readonly width: number;
  readonly height: number;
  readonly rgb: Buffer;
}

/**
 * Builds the grey rendition a pHash is computed from, with geometry normalised: the content is cropped
 * to its bounding box (so a 5 % crop or a border does not shift the layout) and small rotations are
 * levelled (so a 3° photo hashes like the scan). Plain pHash of a text page is dominated by where the
 * block of text sits, which is exactly what crops and rotations move.
 */
export async function canonicalRendition(image: RgbImage, options: RenditionOptions = {}): Promise<CanonicalRendition> {
  const workingSide = options.workingSide ?? DEFAULTS.workingSide;
  const marginFraction = options.marginFraction ?? DEFAULTS.marginFraction;
  const working = await toWorkingGray(image, workingSide);
  const first = findContentBox(working);
  if (first === null) {
    return {
      hashInput: areaResample(working, fullBox(working), HASH_SIDE),
      qualityInput: areaResample(working, fullBox(working), QUALITY_SIDE),
      skewDegrees: 0,
      contentBox: null,
      contentFraction: 0,
      background: 255,
    };
  }
  const skew = estimateSkewDegrees(working, first, first.background, Math.max(32, first.peakContrast));
  let upright = working;
  let box: ContentBox = first;
  if (skew !== 0) {
    upright = await rotateGray(working, -skew, first.background);
    box = findContentBox(upright) ?? first;
  }
  const framed = withMargin(box, upright, marginFraction);
  return {
    hashInput: areaResample(upright, framed, HASH_SIDE),
    qualityInput: areaResample(upright, framed, QUALITY_SIDE),
    skewDegrees: skew,
    contentBox: framed,
    contentFraction: (box.width * box.height) / (upright.width * upright.height),
    background: box.background,
  };
}

async function toWorkingGray(image: RgbImage, side: number): Promise<GrayImage> {
  const { data, info } = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize({ width: side, height: side, fit: 'inside', kernel: 'lanczos3' })
    .grayscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

async function rotateGray(image: GrayImage, degrees: number, background: number): Promise<GrayImage> {
  const level = Math.round(background);
  const { data, info } = await sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 1 } })
    .rotate(degrees, { background: { r: level, g: level, b: level } })
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

function fullBox(image: GrayImage): Box {
  return { left: 0, top: 0, width: image.width, height: image.height };
}

function withMargin(box: Box, image: GrayImage, fraction: number): Box {
  const margin = Math.round(Math.max(box.width, box.height) * fraction);
  const left = Math.max(0, box.left - margin);
  const top = Math.max(0, box.top - margin);
  const right = Math.min(image.width, box.left + box.width + margin);
  const bottom = Math.min(image.height, box.top + box.height + margin);
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * Exact area-average resampling of a box to side×side: every output cell is the mean of the source
 * area it covers, fractional pixels weighted. Deterministic and alias-free whatever the box's size.
 */
export function areaResample(image: GrayImage, box: Box, side: number): Float32Array {
  const out = new Float32Array(side * side);
  const cellW = box.width / side;
  const cellH = box.height / side;
  for (let oy = 0; oy < side; oy += 1) {
    const y0 = box.top + oy * cellH;
    const y1 = y0 + cellH;
    for (let ox = 0; ox < side; ox += 1) {
      const x0 = box.left + ox * cellW;
      const x1 = x0 + cellW;
      let sum = 0;
      let weight = 0;
      for (let y = Math.floor(y0); y < Math.ceil(y1); y += 1) {
        const wy = Math.min(y + 1, y1) - Math.max(y, y0);
        if (wy <= 0) continue;
        const row = Math.min(image.height - 1, y) * image.width;
        for (let x = Math.floor(x0); x < Math.ceil(x1); x += 1) {
          const wx = Math.min(x + 1, x1) - Math.max(x, x0);
          if (wx <= 0) continue;
          const w = wx * wy;
          sum += (image.data[row + Math.min(image.width - 1, x)] ?? 0) * w;
          weight += w;
        }
      }
      out[oy * side + ox] = weight > 0 ? sum / weight : 0;
    }
  }
  return out;
}
