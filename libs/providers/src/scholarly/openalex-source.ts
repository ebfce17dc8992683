import { z } from 'zod';
import { kindOfStatus } from '../llm/provider-failure.js';
import { cleanText, parseJsonBody, scholarlyGet, type ScholarlyHttp, scholarlyProbe } from './http.js';
import { findArxivId, normaliseDoi, normalisePmid } from './identifiers.js';
import type { QueryExpressiveness, ScholarlyQuery, ScholarlySearchResult, ScholarlySource, ScholarlyWork, ScholarlyWorkKind } from './port.js';
import { type ExpressionSyntax, renderExpression } from './search-expression.js';
import { endpoint, scholarlyHttp, type ScholarlySourceConfig } from './source-config.js';

export interface OpenAlexSourceConfig extends ScholarlySourceConfig {
  /** Joins the polite pool (`mailto=`); recommended. */
  readonly mailto?: string;
  /** OpenAlex API key (`api_key=`): keyless use has a very small daily allowance. */
  readonly apiKey?: string;
  /** Results per page (1–100); default 50. */
  readonly perPage?: number;
}

const location = z.object({ landing_page_url: z.string().nullish(), pdf_url: z.string().nullish(), source: z.object({ display_name: z.string().nullish(), type: z.string().nullish() }).nullish() }).nullish();

const work = z.object({
  id: z.string(),
  doi: z.string().nullish(),
  display_name: z.string().nullish(),
  title: z.string().nullish(),
  publication_year: z.int().nullish(),
  authorships: z.array(z.object({ author: z.object({ id: z.string().nullish(), display_name: z.string().nullish() }).nullish() })).nullish(),
  primary_location: location,
  best_oa_location: location,
  abstract_inverted_index: z.record(z.string(), z.array(z.int().nonnegative())).nullish(),
  cited_by_count: z.int().nullish(),
  ids: z.object({ pmid: z.string().nullish() }).nullish(),
  language: z.string().nullish(),
  type: z.string().nullish(),
});
const worksPage = z.object({
  meta: z.object({ count: z.int().nullish(), next_cursor: z.string().nullish() }),
  results: z.array(work),
});

const SELECT = 'id,doi,display_name,title,publication_year,authorships,primary_location,best_oa_location,abstract_inverted_index,cited_by_count,ids,language,type';

/** The public API (`OPENPAW_OPENALEX_BASE_URL` replaces it). */
export const OPENALEX_BASE_URL = 'https://api.openalex.org';

/**
 * OpenAlex works search (`GET /works?search=`), cursor paging (`cursor=*`, then `meta.next_cursor`),
 * `per_page`, the polite pool (`mailto`) and an optional `api_key`. The boolean query goes to `search`
 * in OpenAlex's boolean syntax (`"a b" AND (c OR d) NOT e`, operators in capitals); year bounds become
 * the `publication_year` filter and a language the `language` filter; abstracts are rebuilt from `abstract_inverted_index`. OpenAlex answers
 * 403 when its rate limit is exceeded and 429 when the daily allowance is spent: both are `rate_limited`.
 */
export class OpenAlexSource implements ScholarlySource {
  readonly name = 'openalex';
  readonly local = false;
  readonly expresses: QueryExpressiveness = { boolean: true, not: true, language: 'api' };
  private readonly http: ScholarlyHttp;

  constructor(private readonly config: OpenAlexSourceConfig = {}) {
    this.http = scholarlyHttp('openalex', config, { minIntervalMs: 100 }, [config.apiKey], {
      statusKind: (status) => (status === 403 ? 'rate_limited' : kindOfStatus(status)),
    });
  }

  /** Whether the API's host answers (a probe through this source's rate limiter; see `scholarlyProbe`). */
  probe(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return scholarlyProbe(this.http, endpoint(this.config.baseUrl ?? OPENALEX_BASE_URL, ''), timeoutMs, signal);
  }

  async search(query: ScholarlyQuery): Promise<ScholarlySearchResult> {
    const perPage = Math.min(this.config.perPage ?? 50, 100, Math.max(1, query.limit));
    const works: ScholarlyWork[] = [];
    let cursor: string | null = '*';
    let total: number | null = null;
    let requests = 0;
    while (cursor !== null && works.length < query.limit && requests < (this.config.maxPages ?? 4)) {
      const url = endpoint(this.config.baseUrl ?? OPENALEX_BASE_URL, 'works');
      url.searchParams.set('search', query.expression === undefined ? query.text : renderExpression(query.expression, OPENALEX_SYNTAX));
      const filter = [yearFilter(query), query.language != null ? `language:${query.language}` : null].filter((f) => f !== null);
      if (filter.length > 0) url.searchParams.set('filter', filter.join(','));
      url.searchParams.set('per_page', String(perPage));
      url.searchParams.set('cursor', cursor);
      url.searchParams.set('select', SELECT);
      if (this.config.mailto !== undefined) url.searchParams.set('mailto', this.config.mailto);
      if (this.config.apiKey !== undefined) url.searchParams.set('api_key', this.config.apiKey);
      const page = parseJsonBody('openalex', await scholarlyGet(this.http, url, { ...(query.signal ? { signal: query.signal } : {}) }), worksPage);
      requests += 1;
      total = page.meta.count ?? total;
      for (const result of page.results) {
        const mapped = toWork(result);
        if (mapped !== null) works.push(mapped);
      }
      cursor = page.results.length === 0 ? null : (page.meta.next_cursor ?? null);
    }
    return { works: works.slice(0, query.limit), totalAvailable: total, requests };
  }
}

/** OpenAlex boolean search: quoted phrases, AND/OR/NOT in capitals, parentheses. */
const OPENALEX_SYNTAX: ExpressionSyntax = {
  term: (text) => {
    const clean = text.replace(/["()]/g, ' ').replace(/\s+/g, ' ').trim();
    return /\s/.test(clean) || /^(AND|OR|NOT)$/.test(clean) ? `"${clean}"` : clean;
  },
  and: (items) => `(${items.join(' AND ')})`,
  or: (items) => `(${items.join(' OR ')})`,
  andNot: (positive, excluded) => `${positive === null ? '' : `${positive} `}${excluded.map((e) => `NOT ${e}`).join(' ')}`,
};

function yearFilter(query: ScholarlyQuery): string | null {
  const from = query.yearFrom ?? null;
  const to = query.yearTo ?? null;
  if (from === null && to === null) return null;
  if (from !== null && to !== null) return `publication_year:${from}-${to}`;
  return from !== null ? `publication_year:>${from - 1}` : `publication_year:<${(to ?? 0) + 1}`;
}

function toWork(result: z.infer<typeof work>): ScholarlyWork | null {
  const title = cleanText(result.display_name ?? result.title);
  if (title === null) return null;
  const landing = [result.primary_location?.landing_page_url, result.best_oa_location?.landing_page_url];
  return {
    source: 'openalex',
    sourceId: result.id.replace(/^https:\/\/openalex\.org\//, ''),
    title,
    authors: (result.authorships ?? []).flatMap((a) => {
      const name = cleanText(a.author?.display_name);
      return name === null ? [] : [{ name, id: a.author?.id?.replace(/^https:\/\/openalex\.org\//, '') ?? null }];
    }),
    year: result.publication_year ?? null,
    venue: cleanText(result.primary_location?.source?.display_name),
    abstract: rebuildAbstract(result.abstract_inverted_index),
    doi: normaliseDoi(result.doi),
    arxivId: landing.map((u) => findArxivId(u)).find((id) => id !== null) ?? null,
    pmid: normalisePmid(result.ids?.pmid),
    url: result.primary_location?.landing_page_url ?? result.doi ?? null,
    pdfUrl: result.best_oa_location?.pdf_url ?? result.primary_location?.pdf_url ?? null,
    citationCount: result.cited_by_count ?? null,
    language: result.language ?? null,
    kind: openAlexKind(result.type, result.primary_location?.source?.type),
  };
}

/** OpenAlex work `type`, with the host source's type telling a conference paper from a journal article. */
function openAlexKind(type: string | null | undefined, sourceType: string | null | undefined): ScholarlyWorkKind | null {
  if (type === 'article' || type === 'review' || type === 'letter' || type === 'editorial') return sourceType === 'conference' ? 'conference_paper' : sourceType === 'repository' ? 'preprint' : 'journal_article';
  return WORK_TYPE_KINDS[type ?? ''] ?? null;
}

/** Work types shared by OpenAlex and Crossref (`book-chapter`, `dissertation`, ...). */
export const WORK_TYPE_KINDS: Readonly<Record<string, ScholarlyWorkKind>> = {
  'journal-article': 'journal_article',
  'proceedings-article': 'conference_paper',
  preprint: 'preprint',
  'posted-content': 'preprint',
  book: 'book',
  monograph: 'book',
  'edited-book': 'book',
  'reference-book': 'book',
  'book-chapter': 'book_chapter',
  'book-section': 'book_chapter',
  'book-part': 'book_chapter',
  dissertation: 'thesis',
  report: 'report',
  dataset: 'dataset',
};

/** OpenAlex ships abstracts as word → positions; put the words back in order. */
export function rebuildAbstract(index: Readonly<Record<string, readonly number[]>> | null | undefined): string | null {
  if (index === null || index === undefined) return null;
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index)) for (const position of positions) words[position] = word;
  return cleanText(words.filter((w) => w !== undefined).join(' '));
}
