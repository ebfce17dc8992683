import { Index, MetricKind, ScalarKind } from 'usearch';
import type { StoredVector } from './embedded-vector-index.js';
import { l2Normalised, VectorDimensionError, type VectorHit, type VectorIndex, type VectorPayload } from './vector-index.js';

export interface HnswSettings {
  /** Graph degree M: more links, better recall, more memory. */
  readonly connectivity: number;
  /** ef at construction. */
  readonly expansionAdd: number;
  /** ef at search: the recall/latency knob (the benchmark measures recall against exact search). */
  readonly expansionSearch: number;
  /** Threads for bulk loads (searches are one query on the calling thread). */
  readonly loadThreads: number;
  /**
   * How the graph stores vectors. Half precision halves the memory and builds faster (the distance
   * kernels move half the bytes); a unit vector's cosine moves by under 0.001. Int8 was faster still
   * but lost recall (0.95 at 20k) and moved cosines by up to 0.006, too close to the 0.85 bar.
   */
  readonly precision: 'f32' | 'f16';
}

/**
 * M 16, ef_construction 64, half precision: 5× the build rate of the first choice (ef_construction 128,
 * single precision), which is what lets the start-up rebuild of 1M vectors finish in minutes rather than
 * an hour; ef_search 256 buys back the top-1 that the cheaper graph loses (100k bench corpus, 250
 * paraphrases: the exact top-1 found 245 times against 246 before, ~1 ms a search; bench/ingestion-retrieval, "ANN").
 */
export const DEFAULT_HNSW_SETTINGS: HnswSettings = { connectivity: 16, expansionAdd: 64, expansionSearch: 256, loadThreads: 1, precision: 'f16' };

interface Entry {
  readonly id: string;
  readonly payload: VectorPayload;
}

/**
 * The embedded default's approximate nearest-neighbour index: an HNSW graph (usearch, prebuilt native
 * binaries in its npm package) over unit vectors with cosine distance. It holds no state of its own worth
 * keeping: the vectors live in PostgreSQL and the graph is rebuilt from them at start (`bulkLoad`).
 * Ids map to dense numeric keys; re-upserting an id replaces its vector under a fresh key, since the
 * graph cannot move a node.
 */
export class HnswVectorIndex implements VectorIndex {
  private readonly index: Index;
  private readonly keys = new Map<string, bigint>();
  private readonly entries = new Map<bigint, Entry>();
  private nextKey = 1n;

  constructor(
    readonly dimension: number,
    private readonly settings: HnswSettings = DEFAULT_HNSW_SETTINGS,
  ) {
    if (!Number.isInteger(dimension) || dimension <= 0) throw new VectorDimensionError(`dimension must be a positive integer, got ${dimension}`);
    this.index = new Index({
      dimensions: dimension,
      metric: MetricKind.Cos,
      quantization: settings.precision === 'f16' ? ScalarKind.F16 : ScalarKind.F32,
      connectivity: settings.connectivity,
      expansion_add: settings.expansionAdd,
      expansion_search: settings.expansionSearch,
      multi: false,
    });
  }

  get size(): number {
    return this.keys.size;
  }

  /** Many vectors at once (the start-up rebuild): one native call per page. */
  bulkLoad(page: readonly StoredVector[]): void {
    if (page.length === 0) return;
    const keys = new BigUint64Array(page.length);
    const matrix = new Float32Array(page.length * this.dimension);
    page.forEach((entry, i) => {
      this.checkDimension(entry.vector);
      this.forget(entry.id);
      const key = this.nextKey++;
      keys[i] = key;
      matrix.set(l2Normalised(entry.vector), i * this.dimension);
      this.keys.set(entry.id, key);
      this.entries.set(key, { id: entry.id, payload: entry.payload });
    });
    this.index.add(keys, matrix, this.settings.loadThreads);
  }

  upsert(id: string, vector: Float32Array, payload: VectorPayload): Promise<void> {
    try {
      this.bulkLoad([{ id, vector, payload }]);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  delete(id: string): Promise<void> {
    this.forget(id);
    return Promise.resolve();
  }

  search(vector: Float32Array, k: number): Promise<VectorHit[]> {
    try {
      this.checkDimension(vector);
      return Promise.resolve(this.searchSync(vector, k));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  searchSync(vector: Float32Array, k: number): VectorHit[] {
    const limit = Math.min(Math.max(0, Math.floor(k)), this.keys.size);
    if (limit === 0) return [];
    const matches = this.index.search(l2Normalised(vector), limit, 1);
    const hits: VectorHit[] = [];
    matches.keys.forEach((key, i) => {
      const entry = this.entries.get(key);
      // usearch's cosine distance is 1 − cosine similarity.
      if (entry !== undefined) hits.push({ id: entry.id, score: Math.max(-1, Math.min(1, 1 - (matches.distances[i] ?? 1))), payload: entry.payload });
    });
    return hits;
  }

  private forget(id: string): void {
    const key = this.keys.get(id);
    if (key === undefined) return;
    this.index.remove(key);
    this.keys.delete(id);
    this.entries.delete(key);
  }

  private checkDimension(vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new VectorDimensionError(`expected ${this.dimension} dimensions, got ${vector.length}`);
  }
}
