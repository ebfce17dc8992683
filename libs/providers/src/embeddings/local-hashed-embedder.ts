import type { Embedder, EmbeddingResult } from './port.js';

export interface LocalHashedEmbedderOptions {
  /** Default 384. */
  readonly dimensions?: number;
}

const STOPWORDS = new Set(
  'a an and are as at be by do does for from how i in is it its my of on or that the this to was what when where which who why with you your'.split(' '),
);
/** Whole words weigh more than any single character n-gram. */
const WORD_WEIGHT = 2;

/**
 * The local embedder, shared by every service that embeds (retrieval indexes and queries with the
 * same one): character 3- to 5-grams of the normalised text plus word unigrams (stopwords dropped),
 * each weighted by sublinear term frequency (1 + ln tf), signed-feature-hashed into `dimensions`
 * buckets and L2-normalised. Texts sharing words and word pieces (paraphrases, reordered or
 * re-inflected wording, the same problem typed differently) score high cosine; unrelated texts score
 * near zero. It knows no synonyms: "car" and "automobile" share nothing.
 */
export class LocalHashedEmbedder implements Embedder {
  readonly dimensions: number;
  readonly model: string;

  constructor(options: LocalHashedEmbedderOptions = {}) {
    this.dimensions = options.dimensions ?? 384;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 8) throw new Error(`dimensions must be an integer >= 8, got ${this.dimensions}`);
    this.model = `local/hashed-ngrams-${this.dimensions}`;
  }

  embed(texts: readonly string[]): Promise<EmbeddingResult> {
    const vectors = texts.map((text) => embedText(text, this.dimensions));
    const inputTokens = texts.reduce((sum, text) => sum + normaliseText(text).split(' ').filter(Boolean).length, 0);
    return Promise.resolve({ vectors, model: this.model, dimensions: this.dimensions, usage: { inputTokens }, costUsd: 0 });
  }
}

/** The embedding of one text, synchronously (same as `LocalHashedEmbedder.embed`). */
export function embedText(text: string, dimensions = 384): Float32Array {
  const vector = new Float32Array(dimensions);
  const normalised = normaliseText(text);
  if (normalised === '') return vector;
  const counts = new Map<string, number>();
  const padded = ` ${normalised} `;
  for (let n = 3; n <= 5; n++) {
    for (let i = 0; i + n <= padded.length; i++) {
      const gram = `c:${padded.slice(i, i + n)}`;
      counts.set(gram, (counts.get(gram) ?? 0) + 1);
    }
  }
  for (const word of normalised.split(' ')) {
    if (STOPWORDS.has(word)) continue;
    counts.set(`w:${word}`, (counts.get(`w:${word}`) ?? 0) + 1);
  }
  for (const [feature, tf] of counts) {
    const hash = fnv1a(feature);
    const index = hash % dimensions;
    const sign = (mix(hash) & 1) === 0 ? 1 : -1;
    const weight = (1 + Math.log(tf)) * (feature.startsWith('w:') ? WORD_WEIGHT : 1);
    vector[index] = vector[index]! + sign * weight;
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/** Lower case, accents stripped, anything but letters and digits turned into single spaces. */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** murmur3's finaliser: decorrelates the sign bit from the bucket index. */
function mix(h: number): number {
  let x = h;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}
