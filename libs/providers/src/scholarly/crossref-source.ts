import { z } from 'zod';
import { cleanText, parseJsonBody, scholarlyGet, type ScholarlyHttp, scholarlyProbe, stripMarkup } from './http.js';
import { normaliseArxivId, normaliseDoi } from './identifiers.js';
import type { QueryExpressiveness, ScholarlyQuery, ScholarlySearchResult, ScholarlySource, ScholarlyWork } from './port.js';
import { positiveTerms } from './search-expression.js';
import { WORK_TYPE_KINDS } from './openalex-source.js';
import { endpoint, scholarlyHttp, type ScholarlySourceConfig } from './source-config.js';

export interface CrossrefSourceConfig extends ScholarlySourceConfig {
  /** Joins the polite pool (`mailto=`). */
  readonly mailto?: string;
  /** Metadata Plus token, sent as `Crossref-Plus-API-Token: Bearer <token>`. */
  readonly plusToken?: string;
  /** `rows` per page; default 50. */
  readonly rows?: number;
}

const dateParts = z.object({ 'date-parts': z.array(z.array(z.int().nullable())).nullish() }).nullish();
const item = z.object({
  DOI: z.string(),
  title: z.array(z.string()).nullish(),
  author: z.array(z.object({ given: z.string().nullish(), family: z.string().nullish(), name: z.string().nullish(), ORCID: z.string().nullish() })).nullish(),
  issued: dateParts,
  published: dateParts,
  'container-title': z.array(z.string()).nullish(),
  'is-referenced-by-count': z.int().nullish(),
  abstract: z.string().nullish(),
  URL: z.string().nullish(),
  link: z.array(z.object({ URL: z.string(), 'content-type': z.string().nullish() })).nullish(),
  language: z.string().nullish(),
  type: z.string().nullish(),
});
const workList = z.object({
  status: z.literal('ok'),
  message: z.object({ 'total-results': z.int().nullish(), 'next-cursor': z.string().nullish(), items: z.array(item) }),
});

const SELECT = 'DOI,title,author,issued,published,container-title,is-referenced-by-count,abstract,URL,link,language,type';

/** The public API (`OPENPAW_CROSSREF_BASE_URL` replaces it). */
export const CROSSREF_BASE_URL = 'https://api.crossref.org';

/**
 * Crossref REST works search (`GET /works?query.bibliographic=&rows=&cursor=*`, then `next-cursor`),
 * with `from-pub-date`/`until-pub-date` filters and the polite pool. `query.bibliographic` is a bag of
 * words ranked by relevance, with no boolean operators and no language filter: it gets the boolean
 * query's positive terms, and the caller applies AND/OR, NOT and the language to the results. The limit Crossref announces in
 * `x-rate-limit-limit` per `x-rate-limit-interval` is followed by the source's rate limiter.
 */
export class CrossrefSource implements ScholarlySource {
  readonly name = 'crossref';
  readonly local = false;
  readonly expresses: QueryExpressiveness = { boolean: false, not: false, language: 'records' };
  private readonly http: ScholarlyHttp;

  constructor(private readonly config: CrossrefSourceConfig = {}) {
    this.http = scholarlyHttp('crossref', config, { minIntervalMs: 100 }, [config.plusToken]);
  }

  /** Requests per second currently allowed (from the last response's headers). */
  get minIntervalMs(): number {
    return this.http.limiter.minIntervalMs;
  }

  /** Whether the API's host answers (a probe through this source's rate limiter; see `scholarlyProbe`). */
  probe(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return scholarlyProbe(this.http, endpoint(this.config.baseUrl ?? CROSSREF_BASE_URL, ''), timeoutMs, signal);
  }

  async search(query: ScholarlyQuery): Promise<ScholarlySearchResult> {
    const rows = Math.min(this.config.rows ?? 50, 1000, Math.max(1, query.limit));
    const works: ScholarlyWork[] = [];
    let cursor: string | null = '*';
    let total: number | null = null;
    let requests = 0;
    const headers: Record<string, string> = this.config.plusToken === undefined ? {} : { 'Crossref-Plus-API-Token': `Bearer ${this.config.plusToken}` };
    while (cursor !== null && works.length < query.limit && requests < (this.config.maxPages ?? 3)) {
      const url = endpoint(this.config.baseUrl ?? CROSSREF_BASE_URL, 'works');
      url.searchParams.set('query.bibliographic', query.expression === undefined ? query.text : positiveTerms(query.expression).join(' '));
      url.searchParams.set('rows', String(rows));
      url.searchParams.set('cursor', cursor);
      url.searchParams.set('select', SELECT);
      const filter = [query.yearFrom != null ? `from-pub-date:${query.yearFrom}` : null, query.yearTo != null ? `until-pub-date:${query.yearTo}` : null].filter((f) => f !== null);
      if (filter.length > 0) url.searchParams.set('filter', filter.join(','));
      if (this.config.mailto !== undefined) url.searchParams.set('mailto', this.config.mailto);
      const response = await scholarlyGet(this.http, url, { headers, onResponse: (h) => this.followRateLimit(h), ...(query.signal ? { signal: query.signal } : {}) });
      requests += 1;
      const page = parseJsonBody('crossref', response, workList).message;
      total = page['total-results'] ?? total;
      works.push(...page.items.flatMap((i) => toWork(i) ?? []));
      cursor = page.items.length < rows ? null : (page['next-cursor'] ?? null);
    }
    return { works: works.slice(0, query.limit), totalAvailable: total, requests };
  }

  private followRateLimit(headers: Headers): void {
    const limit = Number(headers.get('x-rate-limit-limit'));
    const interval = parseInterval(headers.get('x-rate-limit-interval'));
    if (Number.isFinite(limit) && limit > 0 && interval !== null) this.http.limiter.setRate(limit, interval);
  }
}

/** `1s`, `60s`, `1m`, `500ms` → milliseconds. */
export function parseInterval(value: string | null): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(value ?? '');
  if (match?.[1] === undefined) return null;
  const unit = (match[2] ?? 's').toLowerCase();
  const factor = unit === 'ms' ? 1 : unit === 's' ? 1_000 : unit === 'm' ? 60_000 : 3_600_000;
  return Number(match[1]) * factor;
}

function toWork(i: z.infer<typeof item>): ScholarlyWork | null {
  const title = cleanText(i.title?.[0]);
  const doi = normaliseDoi(i.DOI);
  if (title === null || doi === null) return null;
  const parts = i.issued?.['date-parts']?.[0] ?? i.published?.['date-parts']?.[0];
  return {
    source: 'crossref',
    sourceId: doi,
    title,
    authors: (i.author ?? []).flatMap((a) => {
      const name = cleanText(a.name ?? [a.given, a.family].filter((p) => p != null && p !== '').join(' '));
      return name === null ? [] : [{ name, id: a.ORCID ?? null }];
    }),
    year: parts?.[0] ?? null,
    venue: cleanText(i['container-title']?.[0]),
    abstract: stripMarkup(i.abstract),
    doi,
    arxivId: normaliseArxivId(doi),
    pmid: null,
    url: i.URL ?? `https://doi.org/${doi}`,
    pdfUrl: i.link?.find((l) => l['content-type'] === 'application/pdf')?.URL ?? null,
    citationCount: i['is-referenced-by-count'] ?? null,
    language: i.language ?? null,
    kind: WORK_TYPE_KINDS[i.type ?? ''] ?? (i.type == null ? null : 'other'),
  };
}
