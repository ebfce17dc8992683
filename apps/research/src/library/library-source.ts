import { ProviderError, type QueryExpressiveness, type ScholarlyQuery, type ScholarlySearchResult, type ScholarlySource, type ScholarlyWork, type ScholarlyWorkKind } from '@openpaw/providers';
import type { LibraryHit, LibraryStore } from '../ports.js';

export const EMPTY_LIBRARY_MESSAGE =
  'your library is empty: import your references with `openpaw library <file.bib|file.ris>` (or POST /library/references to the gateway), then search again';

/**
 * The local default source: the user's own imported references, searched with PostgreSQL full-text
 * search. Needs no network and no account, so an offline run searches something real. The boolean
 * query becomes a `tsquery` with `&`, `|` and `!`; references carry no language.
 */
export class LibrarySource implements ScholarlySource {
  readonly name = 'library';
  readonly local = true;
  readonly expresses: QueryExpressiveness = { boolean: true, not: true, language: 'none' };

  constructor(
    private readonly store: LibraryStore,
    private readonly userId: string,
  ) {}

  async search(query: ScholarlyQuery): Promise<ScholarlySearchResult> {
    const phrases = query.phrases.length > 0 ? query.phrases : [query.text];
    const { hits, total } = await this.store.search(this.userId, { phrases, ...(query.expression !== undefined ? { expression: query.expression } : {}), yearFrom: query.yearFrom ?? null, yearTo: query.yearTo ?? null, limit: query.limit });
    // An empty library is not "no match": the run says so (the library is `not_configured` for this
    // user) with the command that fills it, which matters most when no remote source can be reached.
    if (total === 0 && (await this.store.isEmpty(this.userId))) throw new ProviderError('no_credentials', 'library', EMPTY_LIBRARY_MESSAGE);
    return { works: hits.map(toWork), totalAvailable: total, requests: 1 };
  }
}

function toWork(hit: LibraryHit): ScholarlyWork {
  return {
    source: 'library',
    sourceId: hit.citationKey,
    title: hit.title,
    authors: hit.authors.map((name) => ({ name, id: null })),
    year: hit.year,
    venue: hit.venue,
    abstract: hit.abstract,
    doi: hit.doi,
    arxivId: hit.arxivId,
    pmid: hit.pmid,
    url: hit.url ?? (hit.doi !== null ? `https://doi.org/${hit.doi}` : hit.arxivId !== null ? `https://arxiv.org/abs/${hit.arxivId}` : null),
    pdfUrl: null,
    citationCount: null,
    kind: kindOfEntryType(hit.entryType, hit.arxivId !== null),
  };
}

/** BibTeX entry types and RIS `TY` codes, as record kinds. */
const ENTRY_TYPE_KINDS: Readonly<Record<string, ScholarlyWorkKind>> = {
  article: 'journal_article',
  jour: 'journal_article',
  ejour: 'journal_article',
  mgzn: 'journal_article',
  inproceedings: 'conference_paper',
  conference: 'conference_paper',
  conf: 'conference_paper',
  cpaper: 'conference_paper',
  book: 'book',
  ebook: 'book',
  edbook: 'book',
  incollection: 'book_chapter',
  inbook: 'book_chapter',
  chap: 'book_chapter',
  echap: 'book_chapter',
  phdthesis: 'thesis',
  mastersthesis: 'thesis',
  thesis: 'thesis',
  thes: 'thesis',
  techreport: 'report',
  report: 'report',
  rprt: 'report',
  dataset: 'dataset',
  data: 'dataset',
  unpublished: 'preprint',
  unpb: 'preprint',
};

/** A reference's kind from its entry type; `@misc` with an arXiv id is a preprint, other `@misc` unknown. */
export function kindOfEntryType(entryType: string, hasArxivId: boolean): ScholarlyWorkKind | null {
  return ENTRY_TYPE_KINDS[entryType.toLowerCase()] ?? (hasArxivId ? 'preprint' : null);
}
