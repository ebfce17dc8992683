import { QUALITY_SIDE } from './canonical-rendition.js';

/**
 * Below this score an image is "low quality": its pHash carries too little structure to identify it,
 * so it is never matched by pHash (two blank or near-uniform pages would otherwise hash alike and match
 * each other). Calibrated in bench/ingestion-retrieval/near-duplicate: rendered problems and all their
 * degraded copies score far above it, blank, near-uniform and smooth-gradient images far below.
 */
export const LOW_QUALITY_THRESHOLD = 50;

/**
 * PDQ's image-domain quality metric (ThreatExchange pdqhasher, computeImageDomainQualityMetric) on a
 * 64×64 grey buffer: sum of absolute neighbour differences, each quantised to 0..100 so that only
 * *significant* steps count (a smooth gradient sums to nothing), scaled by 1/90 and capped at 100.
 */
export function pdqQuality(buffer: Float32Array | Float64Array): number {
  const side = QUALITY_SIDE;
  if (buffer.length !== side * side) throw new Error(`quality input must be ${side}×${side}`);
  let gradientSum = 0;
  for (let y = 0; y < side - 1; y += 1) {
    for (let x = 0; x < side; x += 1) {
      const d = Math.trunc((((buffer[y * side + x] ?? 0) - (buffer[(y + 1) * side + x] ?? 0)) * 100) / 255);
      gradientSum += Math.abs(d);
    }
  }
  for (let y = 0; y < side; y += 1) {
    for (let x = 0; x < side - 1; x += 1) {
      const d = Math.trunc((((buffer[y * side + x] ?? 0) - (buffer[y * side + x + 1] ?? 0)) * 100) / 255);
      gradientSum += Math.abs(d);
    }
  }
  return Math.min(100, Math.trunc(gradientSum / 90));
}

export function isLowQuality(quality: number, threshold = LOW_QUALITY_THRESHOLD): boolean {
  return quality < threshold;
}
