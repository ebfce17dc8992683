import { HASH_SIDE, RENDITION_VERSION } from './canonical-rendition.js';

/**
 * The algorithm a stored pHash was computed with. Hashes are only comparable under the same version,
 * so it is stored beside every hash and the retrieval index refuses to compare across versions.
 *
 * dct64: 2-D orthonormal DCT-II of the 32×32 rendition; the top-left 8×8 coefficients *including* the
 * DC term (u = v = 0), as the issue specifies and imagehash does; each bit is "coefficient > median of
 * the 64". The DC term is always far above the median, so bit 63 is a constant 1 and 63 bits carry
 * information — harmless for Hamming distance, and it keeps the definition the textbook one.
 * Bit order: coefficient (u, v) row-major, (0, 0) in the most significant bit.
 */
export const PHASH_VERSION = `dct64-median-dc/v1+${RENDITION_VERSION}`;

const N = HASH_SIDE;
const K = 8;

/** DCT-II basis rows 0..7 for length 32, orthonormal scaling. */
const BASIS: Float64Array = (() => {
  const basis = new Float64Array(K * N);
  for (let u = 0; u < K; u += 1) {
    const alpha = u === 0 ? Math.sqrt(1 / N) : Math.sqrt(2 / N);
    for (let x = 0; x < N; x += 1) basis[u * N + x] = alpha * Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N));
  }
  return basis;
})();

/** The 8×8 low-frequency block of the 2-D DCT-II of a 32×32 image (row-major, u then v). */
export function lowFrequencyDct(pixels: Float32Array | Float64Array): Float64Array {
  if (pixels.length !== N * N) throw new Error(`pHash input must be ${N}×${N}, got ${pixels.length} values`);
  // Separable: first transform columns (rows u of C·A), then rows ((C·A)·Cᵀ), computing only 8 outputs each way.
  const partial = new Float64Array(K * N);
  for (let u = 0; u < K; u += 1) {
    for (let x = 0; x < N; x += 1) {
      let sum = 0;
      for (let y = 0; y < N; y += 1) sum += (BASIS[u * N + y] ?? 0) * (pixels[y * N + x] ?? 0);
      partial[u * N + x] = sum;
    }
  }
  const block = new Float64Array(K * K);
  for (let u = 0; u < K; u += 1) {
    for (let v = 0; v < K; v += 1) {
      let sum = 0;
      for (let x = 0; x < N; x += 1) sum += (partial[u * N + x] ?? 0) * (BASIS[v * N + x] ?? 0);
      block[u * K + v] = sum;
    }
  }
  return block;
}

/** 64-bit DCT pHash of a 32×32 grey rendition. */
export function dctPhash(pixels: Float32Array | Float64Array): bigint {
  const block = lowFrequencyDct(pixels);
  const sorted = Array.from(block).sort((a, b) => a - b);
  const median = ((sorted[31] ?? 0) + (sorted[32] ?? 0)) / 2;
  let hash = 0n;
  for (let i = 0; i < K * K; i += 1) {
    hash = (hash << 1n) | ((block[i] ?? 0) > median ? 1n : 0n);
  }
  return hash;
}

export function phashToHex(hash: bigint): string {
  return BigInt.asUintN(64, hash).toString(16).padStart(16, '0');
}

export function phashFromHex(hex: string): bigint {
  if (!/^[0-9a-f]{16}$/i.test(hex)) throw new Error(`not a 64-bit hex pHash: ${hex}`);
  return BigInt(`0x${hex}`);
}

export function hammingDistance(a: bigint, b: bigint): number {
  let x = BigInt.asUintN(64, a ^ b);
  let count = 0;
  while (x !== 0n) {
    x &= x - 1n;
    count += 1;
  }
  return count;
}
