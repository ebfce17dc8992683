/** The repository's one seeded PRNG (mulberry32), re-exported for the world's generator. */
export { seededRandom } from '@openpaw/contracts';

/** An integer in [0, n). */
export function pick(random: () => number, n: number): number {
  return Math.floor(random() * n);
}

/** FNV-1a over a string: a stable 32-bit hash for deterministic tie-breaking. */
export function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
