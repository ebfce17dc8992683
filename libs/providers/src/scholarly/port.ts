import type { ProviderErrorKind } from '../llm/port.js';
import type { SearchExpression } from './search-expression.js';

/** Names of the scholarly sources (the five remote adapters and the user's local `library`). */
export type ScholarlySourceName = 'library' | 'openalex' | 'arxiv' | 'crossref' | 'semantic_scholar' | 'serpapi_scholar';

/** What kind of record a work is (the contracts' `PaperKind`). */
export type ScholarlyWorkKind = 'journal_article' | 'conference_paper' | 'preprint' | 'book' | 'book_chapter' | 'thesis' | 'report' | 'dataset' | 'other';

/** One search of one source, built from one query of a search strategy. */
export interface ScholarlyQuery {
  /** Free text, as typed into a search box (the keywords joined). */
  readonly text: string;
  /** The query's keywords and phrases; sources with field syntax (arXiv) combine them themselves. */
  readonly phrases: readonly string[];
  /**
   * The approved boolean query (keywords, synonyms as OR groups, exclusions as NOT). A source renders
   * as much of it as its API expresses (see `ScholarlySource.expresses`); the caller applies the rest
   * to the results.
   */
  readonly expression?: SearchExpression;
  readonly yearFrom?: number | null;
  readonly yearTo?: number | null;
  /** ISO 639-1 code when the search is limited to one language. */
  readonly language?: string | null;
  /** At most this many works (the adapter pages until it has them or the source runs out). */
  readonly limit: number;
  readonly signal?: AbortSignal;
}

/** A work as one source describes it; identifiers are normalised (see `identifiers.ts`). */
export interface ScholarlyWork {
  readonly source: ScholarlySourceName;
  /** The source's own id (OpenAlex W-id, arXiv id, DOI for Crossref, S2 paperId, SerpApi result_id, library key). */
  readonly sourceId: string;
  readonly title: string;
  readonly authors: readonly { readonly name: string; readonly id: string | null }[];
  readonly year: number | null;
  readonly venue: string | null;
  readonly abstract: string | null;
  readonly doi: string | null;
  readonly arxivId: string | null;
  readonly pmid: string | null;
  readonly url: string | null;
  readonly pdfUrl: string | null;
  readonly citationCount: number | null;
  /** ISO 639-1 code where the source records one. */
  readonly language?: string | null;
  /** What kind of record it is, where the source says. */
  readonly kind?: ScholarlyWorkKind | null;
}

export interface ScholarlySearchResult {
  readonly works: readonly ScholarlyWork[];
  /** What the source says it has in total for the query, where it says. */
  readonly totalAvailable: number | null;
  /** HTTP requests made (pages), for logs and metrics. */
  readonly requests: number;
}

/**
 * A scholarly search source. Adapters throw only `ProviderError` (provider = the source's name), so a
 * caller can report a failing source by `kind` and go on with the others.
 */
export interface ScholarlySource {
  readonly name: ScholarlySourceName;
  /** True for sources that need no network and no account (the library). */
  readonly local: boolean;
  /** What of a query the source's API expresses itself; absent parts are applied to its results by the caller. */
  readonly expresses?: QueryExpressiveness;
  search(query: ScholarlyQuery): Promise<ScholarlySearchResult>;
  /**
   * Remote sources: resolves when the API's host answers within `timeoutMs` (any HTTP status), throws
   * `ProviderError` (`network`/`timeout`) when it cannot be reached. See `ReachabilityCheckedSource`.
   */
  probe?(timeoutMs: number, signal?: AbortSignal): Promise<void>;
}

export type ScholarlyErrorKind = ProviderErrorKind;

/** Which parts of a `ScholarlyQuery` a source's API expresses (years always are). */
export interface QueryExpressiveness {
  /** AND and OR (parentheses included). */
  readonly boolean: boolean;
  /** Exclusion (NOT). */
  readonly not: boolean;
  /**
   * A language limit: `api` (a filter), `records` (no filter, but works carry their language, so the
   * caller can filter), `none` (neither: the limit cannot be applied to this source).
   */
  readonly language: 'api' | 'records' | 'none';
}
