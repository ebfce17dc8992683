import { z } from 'zod';
import { cleanText, parseJsonBody, scholarlyGet, type ScholarlyHttp } from './http.js';
import { normaliseArxivId, normaliseDoi, normalisePmid } from './identifiers.js';
import type { ScholarlyQuery, ScholarlySearchResult, ScholarlySource, ScholarlyWork } from './port.js';
import { endpoint, scholarlyHttp, type ScholarlySourceConfig } from './source-config.js';

export interface SemanticScholarSourceConfig extends ScholarlySourceConfig {
  /** Optional: sent as `x-api-key`; without one the shared unauthenticated pool is used (slower). */
  readonly apiKey?: string;
  /** `limit` per page (at most 100); default 50. */
  readonly pageSize?: number;
}

const FIELDS = 'paperId,externalIds,title,abstract,year,venue,authors,citationCount,url,openAccessPdf';

const paper = z.object({
  paperId: z.string(),
  externalIds: z.record(z.string(), z.union([z.string(), z.number()]).nullable()).nullish(),
  title: z.string().nullish(),
  abstract: z.string().nullish(),
  year: z.int().nullish(),
  venue: z.string().nullish(),
  authors: z.array(z.object({ authorId: z.string().nullish(), name: z.string().nullish() })).nullish(),
  citationCount: z.int().nullish(),
  url: z.string().nullish(),
  openAccessPdf: z.object({ url: z.string().nullish() }).nullish(),
});
const searchPage = z.object({ total: z.int().nullish(), offset: z.int().nullish(), next: z.int().nullish(), data: z.array(paper).nullish() });

/**
 * Semantic Scholar Graph API relevance search (`GET /graph/v1/paper/search?query=&fields=&offset=&limit=&year=`),
 * offset paging through `next`; the API key is optional (`x-api-key`). Without a key requests are
 * spaced 1 s apart (the shared pool is easily exhausted), with one at the keyed default of 1 request/s too.
 */
export class SemanticScholarSource implements ScholarlySource {
  readonly name = 'semantic_scholar';
  readonly local = false;
  private readonly http: ScholarlyHttp;

  constructor(private readonly config: SemanticScholarSourceConfig = {}) {
    this.http = scholarlyHttp('semantic_scholar', config, { minIntervalMs: 1_000 }, [config.apiKey]);
  }

  async search(query: ScholarlyQuery): Promise<ScholarlySearchResult> {
    const pageSize = Math.min(this.config.pageSize ?? 50, 100, Math.max(1, query.limit));
    const works: ScholarlyWork[] = [];
    let offset: number | null = 0;
    let total: number | null = null;
    let requests = 0;
    const headers: Record<string, string> = this.config.apiKey === undefined ? {} : { 'x-api-key': this.config.apiKey };
    while (offset !== null && works.length < query.limit && requests < (this.config.maxPages ?? 2)) {
      const url = endpoint(this.config.baseUrl ?? 'https://api.semanticscholar.org/graph/v1', 'paper/search');
      url.searchParams.set('query', query.text);
      url.searchParams.set('fields', FIELDS);
      url.searchParams.set('offset', String(offset));
      url.searchParams.set('limit', String(pageSize));
      const years = yearRange(query);
      if (years !== null) url.searchParams.set('year', years);
      const response = await scholarlyGet(this.http, url, { headers, ...(query.signal ? { signal: query.signal } : {}) });
      requests += 1;
      const page = parseJsonBody('semantic_scholar', response, searchPage);
      total = page.total ?? total;
      works.push(...(page.data ?? []).flatMap((p) => toWork(p) ?? []));
      offset = page.next ?? null;
    }
    return { works: works.slice(0, query.limit), totalAvailable: total, requests };
  }
}

/** `2019-2023`, `2019-`, `-2023` */
function yearRange(query: ScholarlyQuery): string | null {
  const from = query.yearFrom ?? null;
  const to = query.yearTo ?? null;
  if (from === null && to === null) return null;
  return `${from ?? ''}-${to ?? ''}`;
}

function toWork(p: z.infer<typeof paper>): ScholarlyWork | null {
  const title = cleanText(p.title);
  if (title === null) return null;
  const ids = p.externalIds ?? {};
  const id = (key: string): string | null => {
    const value = ids[key];
    return value === undefined || value === null ? null : String(value);
  };
  return {
    source: 'semantic_scholar',
    sourceId: p.paperId,
    title,
    authors: (p.authors ?? []).flatMap((a) => {
      const name = cleanText(a.name);
      return name === null ? [] : [{ name, id: a.authorId ?? null }];
    }),
    year: p.year ?? null,
    venue: cleanText(p.venue),
    abstract: cleanText(p.abstract),
    doi: normaliseDoi(id('DOI')),
    arxivId: normaliseArxivId(id('ArXiv')),
    pmid: normalisePmid(id('PubMed')),
    url: p.url ?? null,
    pdfUrl: p.openAccessPdf?.url ?? null,
    citationCount: p.citationCount ?? null,
  };
}
