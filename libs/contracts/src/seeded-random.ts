/**
 * mulberry32: the repository's one small seeded PRNG. The local demo world, the benches' generated
 * sets and the property tests draw from it, so a seed gives the same world, set or cases on every
 * machine (the visual world's frozen hash depends on this exact sequence: do not change it).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
