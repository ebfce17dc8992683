/*
 * The retrieval service's public face for code outside the service (benches, tools): the indexes, the
 * hybrid search and the stores they run on, plus the in-memory stand-ins its own specs use. Nothing
 * else of `src/` is imported from outside; lint holds benches to this file. The maths reading sweep
 * (tools/maths-reindex.ts) runs in the image through this file, so nothing here may load a `testing/`
 * module (the image's build deletes them) or the service's Nest module (a Job need not load it).
 */
export { EmbeddedVectorIndex } from './domain/embedded-vector-index.js';
export { DEFAULT_HNSW_SETTINGS, HnswVectorIndex } from './domain/hnsw-vector-index.js';
export {
  DEFAULT_SEARCH_SETTINGS,
  findPhashDuplicate,
  hybridSearch,
  type HybridSearchPorts,
  mathsStage,
  type RetrievalQuery,
  type SearchStage,
} from './domain/hybrid-search.js';
export { ensureProblemCatalogTables, PgProblemCatalog, phashHexToSigned } from './domain/pg-problem-catalog.js';
export type { DocumentMaths, IndexedProblem, WithdrawalOutcome } from './domain/problem-catalog.js';
export { ensureEmbeddedVectorTables, PgVectorStore } from './domain/pg-vector-store.js';
export { MultiIndexHashIndex, type PhashIndexEntry } from './domain/phash-index.js';
export { indexProblem } from './domain/problem-indexer.js';
export { HashedNgramEmbedder } from './domain/test-support/hashed-ngram-embedder.js';
export { InMemoryProblemCatalog } from './domain/test-support/in-memory-problem-catalog.js';
export { DEFAULT_TEXT_AGREEMENT, levenshtein, textAgreement } from './domain/text-similarity.js';
export { ProviderEmbedderAdapter } from './search/embedder-adapter.js';
export { PersistedVectorIndex } from './search/persisted-vector-index.js';
export { documentFromIndexCommand, queryFromSignature } from './search/signature-mapping.js';
