import type { Embedder, EmbeddingResult } from './port.js';

export interface LocalHashedEmbedderOptions {
  /** Default 384. */
  readonly dimensions?: number;
  /**
   * `maths` adds normalised maths tokens (operator + number, coefficients with the unknown renamed, so
   * "4x − 9" and "4y-9" share them) and drops question phrasing ("find the value of", "work out") from
   * the word features. Another vector space, so another model id: `local/hashed-ngrams-maths-<d>`.
   */
  readonly variant?: 'ngrams' | 'maths';
}

const STOPWORDS = new Set(
  'a an and are as at be by do does for from how i in is it its my of on or that the this to was what when where which who why with you your'.split(' '),
);
/** Question phrasing that says nothing about which problem it is ("what is x when …" = "find x if …"). */
const QUESTION_WORDS = new Set('find value determine calculate compute evaluate work out given if then solve show answer please question'.split(' '));
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
/** Fewer buckets than this would collide almost every feature. */
export const MIN_LOCAL_EMBEDDING_DIMENSIONS = 8;

export class LocalHashedEmbedder implements Embedder {
  readonly dimensions: number;
  readonly model: string;

  constructor(options: LocalHashedEmbedderOptions = {}) {
    this.dimensions = options.dimensions ?? 384;
    if (!Number.isInteger(this.dimensions) || this.dimensions < MIN_LOCAL_EMBEDDING_DIMENSIONS) throw new Error(`dimensions must be an integer >= ${MIN_LOCAL_EMBEDDING_DIMENSIONS}, got ${this.dimensions}`);
    this.variant = options.variant ?? 'ngrams';
    this.model = this.variant === 'maths' ? `local/hashed-ngrams-maths-${this.dimensions}` : `local/hashed-ngrams-${this.dimensions}`;
  }

  private readonly variant: 'ngrams' | 'maths';

  embed(texts: readonly string[]): Promise<EmbeddingResult> {
    const vectors = texts.map((text) => embedText(text, this.dimensions, this.variant));
    const inputTokens = texts.reduce((sum, text) => sum + normaliseText(text).split(' ').filter(Boolean).length, 0);
    return Promise.resolve({ vectors, model: this.model, dimensions: this.dimensions, usage: { inputTokens }, costUsd: 0 });
  }
}

/** The embedding of one text, synchronously (same as `LocalHashedEmbedder.embed`). */
export function embedText(text: string, dimensions = 384, variant: 'ngrams' | 'maths' = 'ngrams'): Float32Array {
  const vector = new Float32Array(dimensions);
  const normalised = normaliseText(text);
  if (normalised === '') return vector;
  const counts = new Map<string, number>();
  if (variant === 'maths') for (const token of mathsTokens(text)) counts.set(`m:${token}`, (counts.get(`m:${token}`) ?? 0) + 1);
  const padded = ` ${normalised} `;
  for (let n = 3; n <= 5; n++) {
    for (let i = 0; i + n <= padded.length; i++) {
      const gram = `c:${padded.slice(i, i + n)}`;
      counts.set(gram, (counts.get(gram) ?? 0) + 1);
    }
  }
  for (const word of normalised.split(' ')) {
    if (STOPWORDS.has(word) || (variant === 'maths' && QUESTION_WORDS.has(word))) continue;
    counts.set(`w:${word}`, (counts.get(`w:${word}`) ?? 0) + 1);
  }
  for (const [feature, tf] of counts) {
    const hash = fnv1a(feature);
    const index = hash % dimensions;
    const sign = (mix(hash) & 1) === 0 ? 1 : -1;
    const weight = (1 + Math.log(tf)) * (feature.startsWith('c:') ? 1 : WORD_WEIGHT);
    vector[index] = vector[index]! + sign * weight;
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/**
 * The maths of a text as tokens: each number with the operator before it ("-9", "=23"), and each
 * coefficient with its unknown renamed ("4x" and "4y" → "4v"). Unicode operators are folded first.
 */
export function mathsTokens(text: string): string[] {
  const folded = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[−–—]/g, '-')
    .replace(/[×·∙]/g, '*')
    .replace(/÷/g, '/')
    .replace(/\s*([-+*/=^])\s*/g, '$1');
  const tokens: string[] = [];
  for (const m of folded.matchAll(/([-+*/=^])?(\d+(?:\.\d+)?)([a-z](?![a-z]))?/g)) {
    const [, op, number, unknown] = m;
    if (op === undefined && unknown === undefined) continue;
    tokens.push(`${op ?? ''}${number ?? ''}${unknown === undefined ? '' : 'v'}`);
  }
  return tokens;
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
