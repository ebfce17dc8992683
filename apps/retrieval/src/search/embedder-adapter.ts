import type { Embedder as ProviderEmbedder } from '@openpaw/providers';
import type { Embedder } from '../domain/embedder.js';

/**
 * The providers library's embedder (local hashed n-grams by default, or an OpenAI-compatible model)
 * behind the retrieval domain's narrower `Embedder` port: a fixed dimension and bare vectors.
 */
export class ProviderEmbedderAdapter implements Embedder {
  private constructor(
    private readonly inner: ProviderEmbedder,
    readonly dimension: number,
  ) {}

  /** The model's id (`provider/model`), recorded with the index. */
  get model(): string {
    return this.inner.model;
  }

  /** Adapts `inner`; a remote model whose size is not configured is asked once, so the index knows it up front. */
  static async open(inner: ProviderEmbedder): Promise<ProviderEmbedderAdapter> {
    const dimension = inner.dimensions ?? (await inner.embed(['dimension probe'])).dimensions;
    return new ProviderEmbedderAdapter(inner, dimension);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const result = await this.inner.embed(texts);
    if (result.vectors.length !== texts.length) throw new Error(`${this.model} returned ${result.vectors.length} vectors for ${texts.length} texts`);
    for (const vector of result.vectors) {
      if (vector.length !== this.dimension) throw new Error(`${this.model} returned a ${vector.length}-dimensional vector, expected ${this.dimension}`);
    }
    return result.vectors;
  }
}
