import { createHash } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { type JsonValue, l2Normalised, type VectorHit, type VectorIndex, type VectorPayload, VectorDimensionError } from './vector-index.js';

export interface QdrantVectorIndexOptions {
  readonly url: string;
  readonly apiKey?: string;
  readonly collection: string;
  readonly dimension: number;
  readonly timeoutMs?: number;
  /** Ask the server for its version at construction and warn on a mismatch (off: no unawaited request). */
  readonly checkCompatibility?: boolean;
}

/** Payload key holding our own id; Qdrant point ids must be integers or UUIDs, ours are free strings. */
export const OPENPAW_ID_KEY = 'openpaw_id';

/**
 * Qdrant point id for one of our ids: a name-based UUID (SHA-256 truncated, version nibble 5, RFC 4122
 * variant) so the same id always lands on the same point and an upsert replaces instead of duplicating.
 */
export function pointIdFor(id: string): string {
  const bytes = createHash('sha256').update(`openpaw:${id}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * `VectorIndex` on Qdrant. The collection (cosine distance, the embedder's dimension, a keyword index on
 * `asset_version_id`) is created on first use if missing; every write waits for the server to apply it,
 * because the caller emits `retrieval.DocumentIndexed` right after and a hit must then be findable.
 */
export class QdrantVectorIndex implements VectorIndex {
  private readonly client: QdrantClient;
  private ready: Promise<void> | undefined;

  constructor(private readonly options: QdrantVectorIndexOptions) {
    this.client = new QdrantClient({
      url: options.url,
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      timeout: options.timeoutMs ?? 10_000,
      checkCompatibility: options.checkCompatibility ?? false,
    });
  }

  /** Creates the collection if it does not exist; safe to race with another replica doing the same. */
  ensureCollection(): Promise<void> {
    this.ready ??= this.createIfMissing().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async upsert(id: string, vector: Float32Array, payload: VectorPayload): Promise<void> {
    this.checkDimension(vector);
    await this.ensureCollection();
    await this.client.upsert(this.options.collection, {
      wait: true,
      points: [{ id: pointIdFor(id), vector: Array.from(l2Normalised(vector)), payload: { ...payload, [OPENPAW_ID_KEY]: id } }],
    });
  }

  async search(vector: Float32Array, k: number): Promise<VectorHit[]> {
    this.checkDimension(vector);
    if (k <= 0) return [];
    await this.ensureCollection();
    const response = await this.client.query(this.options.collection, {
      query: Array.from(vector),
      limit: Math.floor(k),
      with_payload: true,
    });
    const hits: VectorHit[] = [];
    for (const point of response.points) {
      const payload = (point.payload ?? {}) as Record<string, JsonValue>;
      const ourId = payload[OPENPAW_ID_KEY];
      const assetVersionId = payload.asset_version_id;
      // Points written by someone else (no id of ours) cannot be resolved to an asset; skip them.
      if (typeof ourId !== 'string' || typeof assetVersionId !== 'string') continue;
      const { [OPENPAW_ID_KEY]: _ours, ...rest } = payload;
      hits.push({ id: ourId, score: point.score, payload: { ...rest, asset_version_id: assetVersionId } });
    }
    return hits;
  }

  async delete(id: string): Promise<void> {
    await this.ensureCollection();
    await this.client.delete(this.options.collection, { wait: true, points: [pointIdFor(id)] });
  }

  private async createIfMissing(): Promise<void> {
    const { collection, dimension } = this.options;
    if ((await this.client.collectionExists(collection)).exists) return;
    try {
      await this.client.createCollection(collection, { vectors: { size: dimension, distance: 'Cosine' } });
    } catch (error) {
      // Another replica may have created it between our check and our create.
      if ((await this.client.collectionExists(collection)).exists) return;
      throw error;
    }
    await this.client.createPayloadIndex(collection, { field_name: 'asset_version_id', field_schema: 'keyword', wait: true });
  }

  private checkDimension(vector: Float32Array): void {
    if (vector.length !== this.options.dimension) {
      throw new VectorDimensionError(`expected ${this.options.dimension} dimensions, got ${vector.length}`);
    }
  }
}
