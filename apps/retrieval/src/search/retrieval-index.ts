import type { Pool } from 'pg';
import type { VectorBackendSettings } from '../config.js';
import { DEFAULT_SEARCH_SETTINGS, hybridSearch, type HybridSearchResult, type HybridSearchSettings, type MethodThresholds, type RetrievalQuery } from '../domain/hybrid-search.js';
import { PgProblemCatalog } from '../domain/pg-problem-catalog.js';
import { PgVectorStore } from '../domain/pg-vector-store.js';
import type { IndexedProblem, ProblemDocument, WithdrawalExpectation, WithdrawalOutcome } from '../domain/problem-catalog.js';
import { type IndexingResult, indexProblem } from '../domain/problem-indexer.js';
import { QdrantVectorIndex } from '../domain/qdrant-vector-index.js';
import type { VectorIndex } from '../domain/vector-index.js';
import { catalogChangesSince, changeFeedStart, vectorChangesSince } from '../persistence/index-changes.js';
import { claimVectorSpace, storedPhashVersions } from '../persistence/index-metadata.js';
import type { ProviderEmbedderAdapter } from './embedder-adapter.js';
import { PersistedVectorIndex } from './persisted-vector-index.js';
import { PhashIndexes } from './phash-indexes.js';

export interface RetrievalIndexOptions {
  readonly vectors: VectorBackendSettings;
  /** A search first takes in what other replicas indexed, if it last looked longer ago than this (0: every search). */
  readonly refreshMs: number;
  readonly search?: HybridSearchSettings;
}

export interface RetrievalIndexStats {
  readonly backend: VectorBackendSettings['backend'];
  readonly embedder: string;
  readonly dimension: number;
  /** Hashes in memory, per pHash version. */
  readonly phashes: Record<string, number>;
  /** Vectors in memory (embedded backend only). */
  readonly vectors?: number;
}

/**
 * The retrieval service's index: the PostgreSQL catalogue (exact keys, full-text), the in-memory pHash
 * indexes and the vector index (Qdrant, or the embedded one persisted in PostgreSQL), with the domain's
 * hybrid search and indexer over them.
 *
 * PostgreSQL is the truth and memory a cache of it: `open` rebuilds the in-memory parts from it, indexing
 * writes to it first, and a search first catches up (at most every `refreshMs`) with rows changed since
 * the last look, so replicas see each other's indexing. Removals are not propagated that way (no command
 * removes an asset version yet); a restart drops them. Withdrawals are: a withdrawn row stays, changed,
 * so the catch-up takes its pHash and vector out of memory (besides ProblemWithdrawn, heard at once).
 */
export class RetrievalIndex {
  private since: string;
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;

  private constructor(
    private readonly pool: Pool,
    private readonly catalog: PgProblemCatalog,
    private readonly phash: PhashIndexes,
    private readonly vectors: VectorIndex,
    private readonly embedder: ProviderEmbedderAdapter,
    private readonly options: RetrievalIndexOptions,
    since: string,
  ) {
    this.since = since;
    this.lastRefresh = performance.now();
  }

  static async open(pool: Pool, embedder: ProviderEmbedderAdapter, options: RetrievalIndexOptions): Promise<RetrievalIndex> {
    await claimVectorSpace(pool, embedder.model, embedder.dimension);
    // Taken before loading: whatever is written while we load is caught up with at the first search.
    const since = await changeFeedStart(pool);
    const catalog = new PgProblemCatalog(pool);
    const phash = new PhashIndexes();
    await phash.rebuild(catalog, await storedPhashVersions(pool));
    let vectors: VectorIndex;
    switch (options.vectors.backend) {
      case 'embedded': {
        const embedded = new PersistedVectorIndex(embedder.dimension, new PgVectorStore(pool));
        await embedded.load();
        vectors = embedded;
        break;
      }
      case 'qdrant': {
        const { url, apiKey, collection, timeoutMs } = options.vectors;
        const qdrant = new QdrantVectorIndex({ url, ...(apiKey === undefined ? {} : { apiKey }), collection, dimension: embedder.dimension, timeoutMs });
        // Fails the start when Qdrant is unreachable, rather than the first search.
        await qdrant.ensureCollection();
        vectors = qdrant;
        break;
      }
    }
    return new RetrievalIndex(pool, catalog, phash, vectors, embedder, options, since);
  }

  stats(): RetrievalIndexStats {
    return {
      backend: this.options.vectors.backend,
      embedder: this.embedder.model,
      dimension: this.embedder.dimension,
      phashes: this.phash.sizes(),
      ...(this.vectors instanceof PersistedVectorIndex ? { vectors: this.vectors.size } : {}),
    };
  }

  /** Spec 01's RETRIEVING step at the command's thresholds (hybrid tier at threshold − 0.02; maths stage at its own). */
  async search(query: RetrievalQuery, threshold: number, mathsThreshold?: number, methods?: MethodThresholds): Promise<HybridSearchResult> {
    await this.catchUp();
    const ports = { catalog: this.catalog, phashIndex: this.phash.lookup(query.phashVersion), vectors: this.vectors, embedder: this.embedder };
    const policy = { threshold, ...(mathsThreshold === undefined ? {} : { mathsThreshold }), ...(methods === undefined ? {} : { methods }) };
    return hybridSearch(query, policy, ports, this.options.search ?? DEFAULT_SEARCH_SETTINGS);
  }

  /** Indexes one asset version everywhere; idempotent per asset version. */
  index(document: ProblemDocument): Promise<IndexingResult> {
    return indexProblem(document, {
      catalog: this.catalog,
      phashIndex: this.phash.forIndexing(document.phashVersion),
      vectors: this.vectors,
      embedder: this.embedder,
      // A pHash without a version is stored but never indexed (nothing could be compared with it).
      phashVersion: document.phashVersion ?? '',
    });
  }

  /**
   * Withdraws an asset version (WithdrawProblem) while it still holds what was judged: from the
   * catalogue (every lookup of every replica skips it at once), the vector store, and this replica's memory.
   * Repeating it, or after a re-index, changes nothing more.
   */
  async withdraw(assetVersionId: string, expected: WithdrawalExpectation, reason: string): Promise<WithdrawalOutcome> {
    const { outcome, problem } = await this.catalog.withdraw(assetVersionId, expected, reason);
    // Also when already withdrawn: a repeat after a crash between the statement and the vector's deletion finishes it.
    if (problem?.withdrawnReason !== undefined) await this.dropFromIndexes(problem, true);
    return outcome;
  }

  /** ProblemWithdrawn heard from whichever replica applied it: the problem out of this replica's memory. */
  async forgetWithdrawn(assetVersionId: string): Promise<boolean> {
    const problem = await this.catalog.byAssetVersionId(assetVersionId);
    if (problem?.withdrawnReason === undefined) return false;
    await this.dropFromIndexes(problem, false);
    return true;
  }

  private async dropFromIndexes(problem: IndexedProblem, fromStore: boolean): Promise<void> {
    this.phash.forIndexing(undefined).remove(problem.docId);
    if (this.vectors instanceof PersistedVectorIndex && !fromStore) await this.vectors.forget(problem.assetVersionId);
    // Qdrant is one store for every replica; the embedded store's row goes with the vector in this replica's memory.
    else if (fromStore) await this.vectors.delete(problem.assetVersionId);
  }

  /** The problem of each indexed asset version (for candidates found by keyword alone, whose payload lacks it). */
  async problemIdsOf(assetVersionIds: readonly string[]): Promise<Map<string, string>> {
    const problems = await this.catalog.getByAssetVersionIds(assetVersionIds);
    return new Map(problems.flatMap((p) => (p.problemId === undefined ? [] : [[p.assetVersionId, p.problemId] as const])));
  }

  /** Takes in what was indexed elsewhere since the last look, unless that was less than `refreshMs` ago. */
  catchUp(force = false): Promise<void> {
    if (!force && performance.now() - this.lastRefresh < this.options.refreshMs) return this.refreshing ?? Promise.resolve();
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async refresh(): Promise<void> {
    const next = await changeFeedStart(this.pool);
    for await (const page of catalogChangesSince(this.pool, this.since)) {
      for (const change of page) {
        if (change.phash === undefined) this.phash.forIndexing(undefined).remove(change.docId);
        else this.phash.forIndexing(change.phashVersion).insert(change.docId, change.phash);
        if (change.withdrawn && this.vectors instanceof PersistedVectorIndex) await this.vectors.forget(change.assetVersionId);
      }
    }
    if (this.vectors instanceof PersistedVectorIndex) {
      for await (const page of vectorChangesSince(this.pool, this.since)) await this.vectors.apply(page);
    }
    this.since = next;
    this.lastRefresh = performance.now();
  }
}
