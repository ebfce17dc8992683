import type { Embedder } from '../embedder.js';

/**
 * Deterministic stand-in embedder for tests and benchmarks only: character 3- to 5-grams of the text
 * (padded with spaces, so word starts and ends count), feature-hashed with a sign bit into `dimension`
 * buckets, weighted by sublinear term frequency (1 + ln tf), L2-normalised. Good enough that
 * paraphrases land closer than unrelated texts; not a semantic model. The service uses the providers
 * library's embedder (whose local default is of this kind) — swap this out when wiring.
 */
export class HashedNgramEmbedder implements Embedder {
  constructor(readonly dimension = 256) {}

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((text) => this.embedOne(text)));
  }

  embedOne(text: string): Float32Array {
    const counts = new Map<number, number>();
    const padded = ` ${text.toLowerCase().replace(/\s+/g, ' ').trim()} `;
    for (let n = 3; n <= 5; n += 1) {
      for (let i = 0; i + n <= padded.length; i += 1) {
        const h = fnv1a(padded, i, i + n);
        counts.set(h, (counts.get(h) ?? 0) + 1);
      }
    }
    const vector = new Float32Array(this.dimension);
    for (const [h, tf] of counts) {
      const bucket = (h >>> 1) % this.dimension;
      const sign = (h & 1) === 0 ? 1 : -1;
      vector[bucket] = (vector[bucket] ?? 0) + sign * (1 + Math.log(tf));
    }
    let norm = 0;
    for (const v of vector) norm += v * v;
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < vector.length; i += 1) vector[i] = (vector[i] ?? 0) * inv;
    }
    return vector;
  }
}

function fnv1a(text: string, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
