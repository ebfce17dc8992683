export interface EmbeddingResult {
  /** One unit-length (for the local embedder) or provider-normalised vector per input text, in input order. */
  readonly vectors: Float32Array[];
  /** `provider/model`, e.g. `openai/text-embedding-3-small` or `local/hashed-ngrams-384`. */
  readonly model: string;
  readonly dimensions: number;
  readonly usage: { readonly inputTokens: number };
  readonly costUsd: number;
}

/** Text to vectors. Vectors from different models are not comparable: index and query with the same one. */
export interface Embedder {
  /** `provider/model`, stored with an index so it is never queried with another embedder. */
  readonly model: string;
  /** Known up front for the local embedder and when configured for a remote one; else learnt from the first call. */
  readonly dimensions: number | undefined;
  embed(texts: readonly string[], options?: { readonly signal?: AbortSignal }): Promise<EmbeddingResult>;
}

/** Cosine similarity; for unit vectors, their dot product. 0 when either is all zeros. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`vectors differ in length: ${a.length} vs ${b.length}`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
