import type { Box } from './content-crop.js';
import type { GrayImage } from './gray-image.js';

export interface SkewOptions {
  /** Largest rotation searched, in degrees, either way. Photos of pages are rarely off by more. */
  readonly maxDegrees?: number;
  readonly coarseStep?: number;
  readonly fineStep?: number;
  /** Estimates smaller than this are reported as 0, so an upright page is never nudged. */
  readonly minDegrees?: number;
  /** The best angle must sharpen the profile by this factor over 0°, else the content has no lines. */
  readonly minGain?: number;
  /** Ink pixels sampled at most; enough for a stable profile, bounded cost. */
  readonly maxSamples?: number;
}

const DEFAULTS = { maxDegrees: 5, coarseStep: 0.25, fineStep: 0.05, minDegrees: 0.2, minGain: 1.03, maxSamples: 60_000 } as const;

/**
 * Estimates how far lines of text are rotated (degrees, clockwise positive, as sharp's `rotate` counts)
 * by projection profiles: the ink projected onto the axis perpendicular to the true line direction
 * falls into sharp peaks and gaps, which maximises the sum of squared bin counts (the profile's
 * variance, since the total is fixed). Rotating by the negated estimate levels the lines.
 */
export function estimateSkewDegrees(image: GrayImage, box: Box, background: number, inkContrast: number, options: SkewOptions = {}): number {
  const maxDegrees = options.maxDegrees ?? DEFAULTS.maxDegrees;
  const coarseStep = options.coarseStep ?? DEFAULTS.coarseStep;
  const fineStep = options.fineStep ?? DEFAULTS.fineStep;
  const minDegrees = options.minDegrees ?? DEFAULTS.minDegrees;
  const minGain = options.minGain ?? DEFAULTS.minGain;
  const maxSamples = options.maxSamples ?? DEFAULTS.maxSamples;

  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = box.top; y < box.top + box.height; y += 1) {
    for (let x = box.left; x < box.left + box.width; x += 1) {
      if (Math.abs((image.data[y * image.width + x] ?? 0) - background) > inkContrast) {
        xs.push(x - box.left);
        ys.push(y - box.top);
      }
    }
  }
  if (xs.length < 50) return 0;
  const stride = Math.max(1, Math.ceil(xs.length / maxSamples));
  const px = new Float64Array(Math.ceil(xs.length / stride));
  const py = new Float64Array(px.length);
  for (let i = 0, j = 0; i < xs.length; i += stride, j += 1) {
    px[j] = xs[i] ?? 0;
    py[j] = ys[i] ?? 0;
  }
  const span = box.width + box.height;
  const bins = new Float64Array(2 * span + 3);
  const score = (degrees: number): number => {
    const theta = (degrees * Math.PI) / 180;
    const cos = Math.cos(theta);
    const sin = Math.sin(theta);
    bins.fill(0);
    for (let i = 0; i < px.length; i += 1) {
      const projected = (py[i] ?? 0) * cos - (px[i] ?? 0) * sin + span;
      // Linear split between neighbouring bins keeps the score smooth in the angle.
      const lower = Math.floor(projected);
      const frac = projected - lower;
      bins[lower] = (bins[lower] ?? 0) + (1 - frac);
      bins[lower + 1] = (bins[lower + 1] ?? 0) + frac;
    }
    let sum = 0;
    for (const b of bins) sum += b * b;
    return sum;
  };

  const upright = score(0);
  let best = 0;
  let bestScore = upright;
  for (let d = -maxDegrees; d <= maxDegrees + 1e-9; d += coarseStep) {
    const s = score(d);
    if (s > bestScore) {
      bestScore = s;
      best = d;
    }
  }
  const centre = best;
  for (let d = centre - coarseStep; d <= centre + coarseStep + 1e-9; d += fineStep) {
    const s = score(d);
    if (s > bestScore) {
      bestScore = s;
      best = d;
    }
  }
  if (Math.abs(best) < minDegrees || bestScore < upright * minGain) return 0;
  return Math.round(best * 100) / 100;
}
