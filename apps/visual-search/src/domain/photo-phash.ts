
/**
 * 64-bit DCT pHash of a photo, the way ingestion computes it (apps/ingestion/src/domain/phash.ts:
 * 32×32 grey, orthonormal 2-D DCT-II, top-left 8×8 including DC, bit = coefficient > median, (0,0) in
 * the most significant bit). Ingestion's version sits behind its crop-and-deskew rendition for text
 * pages and apps may not import each other; a photo needs no deskew, so the grey 32×32 comes straight
 * from sharp here. The same photo found by two queries (re-encoded, resized) hashes within a few bits.
 */
const N = 32;
const K = 8;

const BASIS: Float64Array = (() => {
  const basis = new Float64Array(K * N);
  for (let u = 0; u < K; u += 1) {
    const alpha = u === 0 ? Math.sqrt(1 / N) : Math.sqrt(2 / N);
    for (let x = 0; x < N; x += 1) basis[u * N + x] = alpha * Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N));
  }
  return basis;
})();

export function dctPhash(grey: Uint8Array | Float64Array): bigint {
  if (grey.length !== N * N) throw new Error(`pHash input must be ${N}×${N}`);
  const partial = new Float64Array(K * N);
  for (let u = 0; u < K; u += 1) {
    for (let x = 0; x < N; x += 1) {
      let sum = 0;
      for (let y = 0; y < N; y += 1) sum += (BASIS[u * N + y] ?? 0) * (grey[y * N + x] ?? 0);
      partial[u * N + x] = sum;
    }
  }
  const block: number[] = [];
  for (let u = 0; u < K; u += 1) {
    for (let v = 0; v < K; v += 1) {
      let sum = 0;
      for (let x = 0; x < N; x += 1) sum += (partial[u * N + x] ?? 0) * (BASIS[v * N + x] ?? 0);
      block.push(sum);
    }
  }
  const sorted = [...block].sort((a, b) => a - b);
  const median = ((sorted[31] ?? 0) + (sorted[32] ?? 0)) / 2;
  return block.reduce((hash, c) => (hash << 1n) | (c > median ? 1n : 0n), 0n);
}

export async function photoPhash(image: Uint8Array): Promise<string> {
  // Loaded by the first photo, not at the service's start (libvips, ~25 MB; ADR 0039).
  const { default: sharp } = await import('sharp');
  const grey = await sharp(image).rotate().greyscale().resize(N, N, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
  return BigInt.asUintN(64, dctPhash(new Uint8Array(grey.buffer, grey.byteOffset, N * N))).toString(16).padStart(16, '0');
}

export function hammingDistance(a: string, b: string): number {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let count = 0;
  while (x !== 0n) {
    x &= x - 1n;
    count += 1;
  }
  return count;
}

/** Near-duplicate radius for photos: re-encodes and resizes stay well inside it, different photos far outside. */
export const PHOTO_NEAR_DUPLICATE_BITS = 6;

/** The first stored hash within the radius of `hash`, if any (linear: a run sees tens of images). */
export function findNearDuplicate(hash: string, seen: Iterable<string>, radius = PHOTO_NEAR_DUPLICATE_BITS): string | undefined {
  for (const other of seen) if (hammingDistance(hash, other) <= radius) return other;
  return undefined;
}
