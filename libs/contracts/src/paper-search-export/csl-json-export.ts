import type { Paper, PaperKind } from '../messages/paper-search-model.js';
import { isArxivDoi } from './paper-text.js';
import { splitName } from './person-name.js';
import { publishedVenueOf, recordKindOf } from './record-kind.js';

/** One CSL-JSON item (the citeproc input format), the fields we fill. */
export interface CslItem {
  readonly id: string;
  readonly type: (typeof CSL_TYPES)[PaperKind];
  readonly title: string;
  readonly author?: readonly ({ readonly family: string; readonly given?: string } | { readonly literal: string })[];
  readonly issued?: { readonly 'date-parts': readonly [readonly [number]] };
  readonly 'container-title'?: string;
  readonly DOI?: string;
  readonly PMID?: string;
  readonly URL?: string;
  readonly abstract?: string;
  readonly number?: string;
  readonly publisher?: string;
}

/** CSL types per record kind (`article` is CSL's preprint). */
const CSL_TYPES = {
  journal_article: 'article-journal',
  conference_paper: 'paper-conference',
  preprint: 'article',
  book: 'book',
  book_chapter: 'chapter',
  thesis: 'thesis',
  report: 'report',
  dataset: 'dataset',
  other: 'document',
} as const satisfies Record<PaperKind, string>;

/** A collection's papers as CSL-JSON items, typed by record kind (`recordKindOf`); the venue is the `container-title`. */
export function toCslJson(papers: readonly Paper[]): CslItem[] {
  return papers.map((p) => {
    const journal = publishedVenueOf(p);
    const doi = p.doi === null || isArxivDoi(p.doi) ? null : p.doi;
    return {
      id: p.id,
      type: CSL_TYPES[recordKindOf(p)],
      title: p.title,
      ...(p.authors.length > 0
        ? {
            author: p.authors.map((a) => {
              const split = splitName(a.name);
              return 'literal' in split ? { literal: split.literal } : { family: split.family, ...(split.given === null ? {} : { given: split.given }) };
            }),
          }
        : {}),
      ...(p.year === null ? {} : { issued: { 'date-parts': [[p.year]] as const } }),
      ...(journal === null ? {} : { 'container-title': journal }),
      ...(doi === null ? {} : { DOI: doi }),
      ...(p.pmid === null ? {} : { PMID: p.pmid }),
      ...(p.url === null ? {} : { URL: p.url }),
      ...(p.abstract === null ? {} : { abstract: p.abstract }),
      ...(journal === null && p.arxivId !== null ? { publisher: 'arXiv', number: `arXiv:${p.arxivId}` } : {}),
    };
  });
}
