import { XMLParser } from 'fast-xml-parser';
import { ProviderError } from '../llm/errors.js';
import { cleanText, scholarlyGet, type ScholarlyHttp, scholarlyProbe } from './http.js';
import { normaliseArxivId, normaliseDoi } from './identifiers.js';
import type { QueryExpressiveness, ScholarlyQuery, ScholarlySearchResult, ScholarlySource, ScholarlyWork } from './port.js';
import { type ExpressionSyntax, renderExpression } from './search-expression.js';
import { endpoint, scholarlyHttp, type ScholarlySourceConfig } from './source-config.js';

export interface ArxivSourceConfig extends ScholarlySourceConfig {
  /** Results per request; default 50 (the API allows up to 2000 per slice). */
  readonly pageSize?: number;
}

/** arXiv's API terms: no more than one request every three seconds. */
export const ARXIV_MIN_INTERVAL_MS = 3_000;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  isArray: (name) => ['entry', 'author', 'link', 'category'].includes(name),
  parseTagValue: false,
  trimValues: true,
});

interface AtomLink {
  readonly '@_href'?: string;
  readonly '@_rel'?: string;
  readonly '@_title'?: string;
  readonly '@_type'?: string;
}
interface AtomEntry {
  readonly id?: string;
  readonly title?: string;
  readonly summary?: string;
  readonly published?: string;
  readonly author?: readonly { readonly name?: string }[];
  readonly link?: readonly AtomLink[];
  readonly doi?: string;
  readonly journal_ref?: string;
}
interface AtomFeed {
  readonly feed?: { readonly totalResults?: string; readonly entry?: readonly AtomEntry[] };
}

/** The public API (`OPENPAW_ARXIV_BASE_URL` replaces it). */
export const ARXIV_BASE_URL = 'https://export.arxiv.org/api';

/**
 * The arXiv API (`GET /api/query?search_query=&start=&max_results=`), answering Atom 1.0 with
 * OpenSearch totals and `arxiv:` extension elements. The boolean query is written in arXiv's query
 * language (`all:"phrase"`, `AND`, `OR`, `ANDNOT`, parentheses); without one, each phrase becomes
 * `all:"phrase"`, joined with AND. arXiv records carry no language, so a language limit is not
 * expressed (the caller reports it). Year bounds become a `submittedDate:[... TO ...]` range. Requests are spaced 3 s apart.
 */
export class ArxivSource implements ScholarlySource {
  readonly name = 'arxiv';
  readonly local = false;
  readonly expresses: QueryExpressiveness = { boolean: true, not: true, language: 'none' };
  private readonly http: ScholarlyHttp;

  constructor(private readonly config: ArxivSourceConfig = {}) {
    this.http = scholarlyHttp('arxiv', config, { minIntervalMs: ARXIV_MIN_INTERVAL_MS }, []);
  }

  /** Whether the API's host answers (a probe through this source's rate limiter; see `scholarlyProbe`). */
  probe(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return scholarlyProbe(this.http, endpoint(this.config.baseUrl ?? ARXIV_BASE_URL, ''), timeoutMs, signal);
  }

  async search(query: ScholarlyQuery): Promise<ScholarlySearchResult> {
    const pageSize = Math.min(this.config.pageSize ?? 50, Math.max(1, query.limit));
    const works: ScholarlyWork[] = [];
    let total: number | null = null;
    let requests = 0;
    for (let start = 0; works.length < query.limit && requests < (this.config.maxPages ?? 2); start += pageSize) {
      const url = endpoint(this.config.baseUrl ?? ARXIV_BASE_URL, 'query');
      url.searchParams.set('search_query', searchQuery(query));
      url.searchParams.set('start', String(start));
      url.searchParams.set('max_results', String(pageSize));
      url.searchParams.set('sortBy', 'relevance');
      const response = await scholarlyGet(this.http, url, { ...(query.signal ? { signal: query.signal } : {}) });
      requests += 1;
      const feed = parseFeed(response.text);
      total = feed.total ?? total;
      works.push(...feed.works);
      if (feed.entries < pageSize || (total !== null && start + pageSize >= total)) break;
    }
    return { works: works.slice(0, query.limit), totalAvailable: total, requests };
  }
}

/** arXiv's query language: `all:"phrase"`, `AND`, `OR`, `ANDNOT` (binary, so a lone exclusion has nothing to exclude from). */
const ARXIV_SYNTAX: ExpressionSyntax = {
  term: (text) => {
    const clean = text.replace(/["()]/g, ' ').replace(/\s+/g, ' ').trim();
    return clean.includes(' ') ? `all:"${clean}"` : `all:${clean}`;
  },
  and: (items) => `(${items.join(' AND ')})`,
  or: (items) => `(${items.join(' OR ')})`,
  andNot: (positive, excluded) => (positive === null ? excluded.join(' AND ') : `(${positive} ANDNOT ${excluded.length === 1 ? excluded[0]! : `(${excluded.join(' OR ')})`})`),
};

/** `(all:"graph neural" AND all:molecules) AND submittedDate:[202001010000 TO 202412312359]` */
export function searchQuery(query: ScholarlyQuery): string {
  const phrases = (query.phrases.length > 0 ? query.phrases : [query.text]).filter((p) => p.replace(/["()\s]/g, '') !== '');
  const terms = query.expression !== undefined ? [renderExpression(query.expression, ARXIV_SYNTAX)] : phrases.map((p) => ARXIV_SYNTAX.term(p));
  const from = query.yearFrom ?? null;
  const to = query.yearTo ?? null;
  if (from !== null || to !== null) terms.push(`submittedDate:[${from ?? 1991}01010000 TO ${to ?? 9999}12312359]`);
  return terms.join(' AND ');
}

function parseFeed(xml: string): { works: ScholarlyWork[]; total: number | null; entries: number } {
  let parsed: AtomFeed;
  try {
    parsed = parser.parse(xml, true) as AtomFeed;
  } catch (error) {
    throw new ProviderError('malformed_response', 'arxiv', `response is not Atom XML: ${(error as Error).message}`);
  }
  if (parsed.feed === undefined) throw new ProviderError('malformed_response', 'arxiv', 'response has no Atom feed element');
  const entries = parsed.feed.entry ?? [];
  // The API reports a bad query as HTTP 200/400 with one entry whose id is under /api/errors.
  const apiError = entries.find((e) => (e.id ?? '').includes('/api/errors'));
  if (apiError !== undefined) throw new ProviderError('bad_request', 'arxiv', cleanText(apiError.summary) ?? 'query rejected');
  const total = parsed.feed.totalResults === undefined ? null : Number(parsed.feed.totalResults);
  return { works: entries.flatMap((e) => toWork(e) ?? []), total: Number.isFinite(total) ? total : null, entries: entries.length };
}

function toWork(entry: AtomEntry): ScholarlyWork | null {
  const arxivId = normaliseArxivId(entry.id);
  const title = cleanText(entry.title);
  if (arxivId === null || title === null) return null;
  const links = entry.link ?? [];
  const year = entry.published === undefined ? null : Number(entry.published.slice(0, 4));
  return {
    source: 'arxiv',
    sourceId: arxivId,
    title,
    authors: (entry.author ?? []).flatMap((a) => {
      const name = cleanText(a.name);
      return name === null ? [] : [{ name, id: null }];
    }),
    year: year !== null && Number.isInteger(year) ? year : null,
    venue: cleanText(entry.journal_ref) ?? 'arXiv',
    abstract: cleanText(entry.summary),
    doi: normaliseDoi(entry.doi),
    arxivId,
    pmid: null,
    url: links.find((l) => l['@_rel'] === 'alternate')?.['@_href'] ?? `https://arxiv.org/abs/${arxivId}`,
    pdfUrl: links.find((l) => l['@_title'] === 'pdf' || l['@_type'] === 'application/pdf')?.['@_href'] ?? null,
    citationCount: null,
    // A journal reference says it was published; as what, arXiv does not say.
    kind: cleanText(entry.journal_ref) === null ? 'preprint' : null,
  };
}
