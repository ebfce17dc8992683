import type { Paper } from '../messages/paper-search-model.js';
import { isArxivDoi } from './paper-text.js';
import { splitName } from './person-name.js';

/** One CSL-JSON item (the citeproc input format), the fields we fill. */
export interface CslItem {
  readonly id: string;
  readonly type: 'article-journal' | 'article';
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

/** A collection's papers as CSL-JSON items: `article-journal` with a journal, `article` (preprint) otherwise. */
export function toCslJson(papers: readonly Paper[]): CslItem[] {
  return papers.map((p) => {
    const journal = p.venue !== null && !/^arxiv$/i.test(p.venue) ? p.venue : null;
    const doi = p.doi === null || isArxivDoi(p.doi) ? null : p.doi;
    return {
      id: p.id,
      type: journal === null ? 'article' : 'article-journal',
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
