/**
 * Text → vector port. The providers library supplies the real implementations (an OpenAI-compatible
 * embeddings adapter and a local deterministic default); the retrieval domain only needs this much.
 */
export interface Embedder {
  /** Vector dimension; fixed per model, so an index built with one embedder rejects another's vectors. */
  readonly dimension: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
