import { l2Normalised, type VectorHit, type VectorIndex, type VectorPayload, VectorDimensionError } from './vector-index.js';

export interface StoredVector {
  readonly id: string;
  readonly vector: Float32Array;
  readonly payload: VectorPayload;
}

/** Where the embedded index keeps its vectors between restarts (PostgreSQL in the service). */
export interface VectorStore {
  save(entry: StoredVector): Promise<void>;
  remove(id: string): Promise<void>;
  /** Every stored vector, in pages, for the start-up load. */
  loadAll(): AsyncIterable<readonly StoredVector[]>;
}

/**
 * The local default vector index: every vector in one Float32Array matrix, searched exactly by dot
 * product over unit vectors (= cosine). Exact search is linear, which is fine below ~100k vectors (the
 * hybrid benchmark measures it); beyond that, use the Qdrant adapter. Writes go to the store first, so
 * memory never holds a vector the database does not.
 */
export class EmbeddedVectorIndex implements VectorIndex {
  private matrix: Float32Array;
  private ids: string[] = [];
  private payloads: VectorPayload[] = [];
  private readonly slots = new Map<string, number>();

  constructor(
    readonly dimension: number,
    private readonly store?: VectorStore,
    initialCapacity = 1024,
  ) {
    if (!Number.isInteger(dimension) || dimension <= 0) throw new VectorDimensionError(`dimension must be a positive integer, got ${dimension}`);
    this.matrix = new Float32Array(dimension * Math.max(1, initialCapacity));
  }

  get size(): number {
    return this.ids.length;
  }

  /** Replaces the in-memory content with the store's. */
  async load(): Promise<void> {
    if (this.store === undefined) return;
    this.ids = [];
    this.payloads = [];
    this.slots.clear();
    for await (const page of this.store.loadAll()) for (const entry of page) this.put(entry.id, entry.vector, entry.payload);
  }

  async upsert(id: string, vector: Float32Array, payload: VectorPayload): Promise<void> {
    this.checkDimension(vector);
    const unit = l2Normalised(vector);
    await this.store?.save({ id, vector: unit, payload });
    this.put(id, unit, payload);
  }

  async delete(id: string): Promise<void> {
    await this.store?.remove(id);
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    // Swap-remove keeps the matrix dense, so search never skips holes.
    const last = this.ids.length - 1;
    if (slot !== last) {
      const d = this.dimension;
      this.matrix.copyWithin(slot * d, last * d, (last + 1) * d);
      const movedId = this.ids[last] ?? '';
      const movedPayload = this.payloads[last];
      this.ids[slot] = movedId;
      if (movedPayload !== undefined) this.payloads[slot] = movedPayload;
      this.slots.set(movedId, slot);
    }
    this.ids.pop();
    this.payloads.pop();
    this.slots.delete(id);
  }

  search(vector: Float32Array, k: number): Promise<VectorHit[]> {
    try {
      this.checkDimension(vector);
      return Promise.resolve(this.searchSync(l2Normalised(vector), k));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Exact top-k by dot product; the query must already be unit length. */
  searchSync(unitQuery: Float32Array, k: number): VectorHit[] {
    const n = this.ids.length;
    const limit = Math.min(Math.max(0, Math.floor(k)), n);
    if (limit === 0) return [];
    const d = this.dimension;
    const m = this.matrix;
    // Top-k kept sorted descending in two small arrays; k is tiny next to n, so insertion is cheap.
    const topScores = new Float64Array(limit).fill(-Infinity);
    const topSlots = new Int32Array(limit).fill(-1);
    for (let slot = 0; slot < n; slot += 1) {
      const base = slot * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i + 3 < d; i += 4) {
        s0 += (m[base + i] ?? 0) * (unitQuery[i] ?? 0);
        s1 += (m[base + i + 1] ?? 0) * (unitQuery[i + 1] ?? 0);
        s2 += (m[base + i + 2] ?? 0) * (unitQuery[i + 2] ?? 0);
        s3 += (m[base + i + 3] ?? 0) * (unitQuery[i + 3] ?? 0);
      }
      for (; i < d; i += 1) s0 += (m[base + i] ?? 0) * (unitQuery[i] ?? 0);
      const score = s0 + s1 + s2 + s3;
      if (score <= (topScores[limit - 1] ?? -Infinity)) continue;
      let at = limit - 1;
      while (at > 0 && score > (topScores[at - 1] ?? -Infinity)) {
        topScores[at] = topScores[at - 1] ?? -Infinity;
        topSlots[at] = topSlots[at - 1] ?? -1;
        at -= 1;
      }
      topScores[at] = score;
      topSlots[at] = slot;
    }
    const hits: VectorHit[] = [];
    for (let r = 0; r < limit; r += 1) {
      const slot = topSlots[r] ?? -1;
      const payload = this.payloads[slot];
      const id = this.ids[slot];
      if (slot < 0 || payload === undefined || id === undefined) continue;
      hits.push({ id, score: Math.max(-1, Math.min(1, topScores[r] ?? 0)), payload });
    }
    return hits;
  }

  private put(id: string, unit: Float32Array, payload: VectorPayload): void {
    this.checkDimension(unit);
    let slot = this.slots.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.ensureCapacity(slot + 1);
      this.ids.push(id);
      this.payloads.push(payload);
      this.slots.set(id, slot);
    } else {
      this.payloads[slot] = payload;
    }
    this.matrix.set(unit, slot * this.dimension);
  }

  private ensureCapacity(rows: number): void {
    if (rows * this.dimension <= this.matrix.length) return;
    let capacity = this.matrix.length / this.dimension;
    while (capacity < rows) capacity *= 2;
    const next = new Float32Array(capacity * this.dimension);
    next.set(this.matrix);
    this.matrix = next;
  }

  private checkDimension(vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new VectorDimensionError(`expected ${this.dimension} dimensions, got ${vector.length}`);
  }
}
