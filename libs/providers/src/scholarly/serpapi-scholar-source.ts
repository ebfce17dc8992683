import { z } from 'zod';
import { ProviderError } from '../llm/errors.js';
import { cleanText, parseJsonBody, scholarlyGet, type ScholarlyHttp } from './http.js';
import { findArxivId, findDoi } from './identifiers.js';
import type { ScholarlyQuery, ScholarlySearchResult, ScholarlySource, ScholarlyWork } from './port.js';
import { endpoint, scholarlyHttp, type ScholarlySourceConfig } from './source-config.js';

export interface SerpApiScholarSourceConfig extends ScholarlySourceConfig {
  /** Required: SerpApi is a paid API. */
  readonly apiKey: string;
  /** `num` per page (Google Scholar gives at most 20); default 20. */
  readonly pageSize?: number;
}

const result = z.object({
  result_id: z.string(),
  title: z.string().nullish(),
  link: z.string().nullish(),
  publication_info: z.object({ summary: z.string().nullish(), authors: z.array(z.object({ name: z.string(), author_id: z.string().nullish() })).nullish() }).nullish(),
  resources: z.array(z.object({ file_format: z.string().nullish(), link: z.string().nullish() })).nullish(),
  inline_links: z.object({ cited_by: z.object({ total: z.int().nullish() }).nullish() }).nullish(),
});
const response = z.object({
  error: z.string().nullish(),
  search_metadata: z.object({ status: z.string().nullish() }).nullish(),
  search_information: z.object({ total_results: z.int().nullish() }).nullish(),
  organic_results: z.array(result).nullish(),
  serpapi_pagination: z.object({ next: z.string().nullish() }).nullish(),
});

/**
 * Google Scholar through SerpApi (`GET /search.json?engine=google_scholar&q=&api_key=&as_ylo=&as_yhi=&num=&start=`).
 * Results carry no DOI or structured venue: the DOI and arXiv id are read from the result link when
 * it holds one, year and venue from `publication_info.summary` ("A Author, B Author - Venue, 2017 - host").
 * SerpApi reports failures as `{"error": ...}` (also with HTTP 200 when nothing matched).
 */
export class SerpApiScholarSource implements ScholarlySource {
  readonly name = 'serpapi_scholar';
  readonly local = false;
  private readonly http: ScholarlyHttp;

  constructor(private readonly config: SerpApiScholarSourceConfig) {
    if (config.apiKey.trim() === '') throw new ProviderError('no_credentials', 'serpapi_scholar', 'SerpApi needs an API key (SERPAPI_API_KEY)');
    this.http = scholarlyHttp('serpapi_scholar', config, { minIntervalMs: 500 }, [config.apiKey]);
  }

  async search(query: ScholarlyQuery): Promise<ScholarlySearchResult> {
    const pageSize = Math.min(this.config.pageSize ?? 20, 20, Math.max(1, query.limit));
    const works: ScholarlyWork[] = [];
    let total: number | null = null;
    let requests = 0;
    for (let start = 0; works.length < query.limit && requests < (this.config.maxPages ?? 2); start += pageSize) {
      const url = endpoint(this.config.baseUrl ?? 'https://serpapi.com', 'search.json');
      url.searchParams.set('engine', 'google_scholar');
      url.searchParams.set('q', query.text);
      url.searchParams.set('api_key', this.config.apiKey);
      url.searchParams.set('num', String(pageSize));
      url.searchParams.set('start', String(start));
      if (query.yearFrom != null) url.searchParams.set('as_ylo', String(query.yearFrom));
      if (query.yearTo != null) url.searchParams.set('as_yhi', String(query.yearTo));
      const page = parseJsonBody('serpapi_scholar', await scholarlyGet(this.http, url, { ...(query.signal ? { signal: query.signal } : {}) }), response);
      requests += 1;
      const results = page.organic_results ?? [];
      if (page.error != null && results.length === 0) {
        // "Google hasn't returned any results for this query." is an empty answer, not a failure.
        if (/hasn't returned any results/i.test(page.error)) break;
        throw new ProviderError('bad_request', 'serpapi_scholar', page.error, { secrets: [this.config.apiKey] });
      }
      total = page.search_information?.total_results ?? total;
      works.push(...results.flatMap((r) => toWork(r) ?? []));
      if (results.length < pageSize || page.serpapi_pagination?.next == null) break;
    }
    return { works: works.slice(0, query.limit), totalAvailable: total, requests };
  }
}

/** "A Vaswani, N Shazeer… - Advances in neural information processing …, 2017 - proceedings.neurips.cc" */
export function parsePublicationSummary(summary: string | null | undefined): { authors: string[]; venue: string | null; year: number | null } {
  const parts = (summary ?? '').split(' - ').map((p) => p.trim());
  const authors = (parts[0] ?? '')
    .split(',')
    .map((a) => a.replace(/…/g, '').trim())
    .filter((a) => a !== '');
  const middle = parts.length >= 2 ? (parts[1] ?? '') : '';
  const yearMatch = /(?:^|,\s*|\s)((?:19|20)\d{2})\s*$/.exec(middle);
  const venue = cleanText(middle.replace(/,?\s*(?:19|20)\d{2}\s*$/, '').replace(/…/g, ''));
  return { authors, venue, year: yearMatch?.[1] === undefined ? null : Number(yearMatch[1]) };
}

function toWork(r: z.infer<typeof result>): ScholarlyWork | null {
  const title = cleanText(r.title);
  if (title === null) return null;
  const summary = parsePublicationSummary(r.publication_info?.summary);
  const structured = r.publication_info?.authors ?? [];
  const pdf = r.resources?.find((res) => (res.file_format ?? '').toUpperCase() === 'PDF')?.link ?? null;
  return {
    source: 'serpapi_scholar',
    sourceId: r.result_id,
    title,
    authors: structured.length > 0 ? structured.map((a) => ({ name: a.name, id: a.author_id ?? null })) : summary.authors.map((name) => ({ name, id: null })),
    year: summary.year,
    venue: summary.venue,
    // Google Scholar's snippet is a search-page excerpt around the query words, not the abstract: never passed off as one.
    abstract: null,
    doi: findDoi(r.link),
    arxivId: findArxivId(r.link) ?? findArxivId(pdf),
    pmid: null,
    url: r.link ?? null,
    pdfUrl: pdf,
    citationCount: r.inline_links?.cited_by?.total ?? null,
  };
}
