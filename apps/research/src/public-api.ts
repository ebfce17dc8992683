/** What benches (bench/) use of the research service; nothing else imports from here. */
export { deduplicate } from './paper-search/dedup/deduplicate.js';
export { paperIdOf } from './paper-search/papers/paper-id.js';
export { excludeRejected } from './paper-search/dedup/exclude-rejected.js';
export { LocalIntentParser } from './paper-search/intent/local-intent-parser.js';
export { LocalStrategyBuilder } from './paper-search/strategy/local-strategy-builder.js';
export { searchSources } from './paper-search/search/search-sources.js';
export { LexicalRelevanceScorer } from './paper-search/score/lexical-relevance-scorer.js';
export { LibrarySource } from './library/library-source.js';
export type { LibraryReference } from './library/reference.js';
export { PgLibraryStore } from './persistence/pg-library-store.js';
export { openResearchDatabase } from './persistence/database.js';
