// Public face of the retrieval domain: what the service's handlers (wired later) may use.
export { EmbeddedVectorIndex, type StoredVector, type VectorStore } from './embedded-vector-index.js';
export type { Embedder } from './embedder.js';
export {
  CONFIDENCE,
  DEFAULT_METHOD_THRESHOLDS,
  DEFAULT_SEARCH_SETTINGS,
  findPhashDuplicate,
  fuse,
  HYBRID_THRESHOLD_OFFSET,
  hybridSearch,
  type CandidateRef,
  type HybridSearchPorts,
  type HybridSearchResult,
  type HybridSearchSettings,
  type MethodThresholds,
  type PhashLookup,
  type RetrievalQuery,
  type SearchPolicy,
  type SearchStage,
  type TraceEntry,
} from './hybrid-search.js';
export { MultiIndexHashIndex, type PhashIndexEntry, type PhashIndexOptions, type PhashMatch } from './phash-index.js';
export { ensureProblemCatalogTables, keywordQueryText, PgProblemCatalog, PROBLEM_CATALOG_DDL } from './pg-problem-catalog.js';
export { EMBEDDED_VECTORS_DDL, ensureEmbeddedVectorTables, PgVectorStore } from './pg-vector-store.js';
export type { CatalogChange, DocumentMaths, IndexedProblem, KeywordHit, ProblemCatalog, ProblemDocument, WithdrawalExpectation, WithdrawalOutcome } from './problem-catalog.js';
export { indexProblem, type IndexingPorts, type IndexingResult, rebuildPhashIndex, unindexProblem } from './problem-indexer.js';
export { OPENPAW_ID_KEY, pointIdFor, QdrantVectorIndex, type QdrantVectorIndexOptions } from './qdrant-vector-index.js';
export { DEFAULT_TEXT_AGREEMENT, editSimilarity, levenshtein, numbersConsistent, textAgreement, type TextAgreement, type TextAgreementBounds } from './text-similarity.js';
export { type JsonValue, l2Normalised, VectorDimensionError, type VectorHit, type VectorIndex, type VectorPayload } from './vector-index.js';
