import { OpenPawError } from '@openpaw/contracts';
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Stored beside every vector. `asset_version_id` is what a hit resolves to; the rest is free-form. */
export interface VectorPayload {
  readonly asset_version_id: string;
  readonly [key: string]: JsonValue;
}

export interface VectorHit {
  readonly id: string;
  /** Cosine similarity in [-1, 1]. */
  readonly score: number;
  readonly payload: VectorPayload;
}

/**
 * The vector store port: Qdrant in production, the embedded exact index as the local default.
 * Upserts are idempotent per id, which is what makes re-indexing an asset version a no-op.
 */
export interface VectorIndex {
  upsert(id: string, vector: Float32Array, payload: VectorPayload): Promise<void>;
  search(vector: Float32Array, k: number): Promise<VectorHit[]>;
  delete(id: string): Promise<void>;
}

export class VectorDimensionError extends OpenPawError {
  readonly code = 'vector_dimension_mismatch';
  override readonly name = 'VectorDimensionError';
}

/** Unit-length copy of a vector (cosine then equals the dot product); the zero vector stays zero. */
export function l2Normalised(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const v of vector) norm += v * v;
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i += 1) out[i] = (vector[i] ?? 0) * inv;
  return out;
}
