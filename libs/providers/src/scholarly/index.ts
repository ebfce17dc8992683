export type { QueryExpressiveness, ScholarlyErrorKind, ScholarlyQuery, ScholarlySearchResult, ScholarlySource, ScholarlySourceName, ScholarlyWork, ScholarlyWorkKind } from './port.js';
export { findArxivId, findDoi, normaliseArxivId, normaliseDoi, normalisePmid } from './identifiers.js';
export { RateLimiter, type SharedLimit, type SharedStartSlots } from './rate-limiter.js';
export type { ScholarlySourceConfig } from './source-config.js';
export { OpenAlexSource, type OpenAlexSourceConfig } from './openalex-source.js';
export { ARXIV_MIN_INTERVAL_MS, ArxivSource, type ArxivSourceConfig } from './arxiv-source.js';
export { CrossrefSource, type CrossrefSourceConfig } from './crossref-source.js';
export { SemanticScholarSource, type SemanticScholarSourceConfig } from './semantic-scholar-source.js';
export { SerpApiScholarSource, type SerpApiScholarSourceConfig } from './serpapi-scholar-source.js';
export {
  createScholarlySourcesFromEnv,
  DEFAULT_SCHOLARLY_SOURCES,
  REMOTE_SCHOLARLY_SOURCES,
  type RemoteScholarlySourceName,
  type ScholarlySettings,
  scholarlySettingsFromEnv,
  type ScholarlySourcesFactoryOptions,
} from './create-scholarly-sources-from-env.js';
export {
  excludedTermsOf,
  type ExpressionSyntax,
  matchesExpression,
  operatorsOf,
  parseSearchExpression,
  positiveTerms,
  renderExpression,
  type SearchExpression,
  SearchExpressionError,
  searchWords,
  withoutExclusions,
} from './search-expression.js';
export { ReachabilityCheckedSource, type ReachabilityOptions } from './reachability-checked-source.js';
export { type CachedResponse, type FetchClaim, responseCacheKey, type SharedResponseCache, type SharedResponses } from './response-cache.js';
