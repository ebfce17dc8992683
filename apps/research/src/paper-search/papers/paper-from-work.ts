import { MAX_ABSTRACT_CHARS, MAX_AUTHORS_PER_PAPER, type Paper, type ResultCuts } from '@openpaw/contracts';
import { normaliseArxivId, type ScholarlyWork } from '@openpaw/providers';
import { paperIdOf } from './paper-id.js';

/** A source's work as a Paper of the contracts: identifiers completed, long fields cut to fit a message. */
export function paperFromWork(work: ScholarlyWork): Paper {
  const arxivId = work.arxivId ?? normaliseArxivId(work.doi);
  const title = work.title.slice(0, 1_000);
  return {
    id: paperIdOf({ doi: work.doi, arxivId, pmid: work.pmid, title }),
    title,
    // Long author lists (consortium papers) are cut to the first 50: enough to cite, small enough to send (counted by `cutsOfWorks`).
    authors: work.authors.slice(0, MAX_AUTHORS_PER_PAPER).map((a) => ({ name: a.name.slice(0, 300), id: a.id === null ? null : a.id.slice(0, 200) })),
    year: work.year !== null && work.year >= 1000 && work.year <= 3000 ? work.year : null,
    venue: work.venue === null ? null : work.venue.slice(0, 500),
    abstract: clip(work.abstract, MAX_ABSTRACT_CHARS),
    doi: work.doi,
    arxivId,
    pmid: work.pmid,
    url: fits(work.url),
    pdfUrl: fits(work.pdfUrl),
    citationCount: work.citationCount !== null && work.citationCount >= 0 ? Math.round(work.citationCount) : null,
    sources: [work.source],
    sourceIds: [{ source: work.source, id: work.sourceId.slice(0, 300) }],
    ...(work.kind == null ? {} : { kind: work.kind }),
  };
}

/** What `paperFromWork` cuts from these works: abstracts past `MAX_ABSTRACT_CHARS`, author lists past `MAX_AUTHORS_PER_PAPER`. */
export function cutsOfWorks(works: readonly ScholarlyWork[]): ResultCuts {
  return {
    papersLeftOut: 0,
    abstractsShortened: works.filter((w) => w.abstract !== null && w.abstract.length > MAX_ABSTRACT_CHARS).length,
    authorListsShortened: works.filter((w) => w.authors.length > MAX_AUTHORS_PER_PAPER).length,
  };
}

/** Cut at a word boundary with an ellipsis. */
export function clip(text: string | null, max: number): string | null {
  if (text === null || text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.8 ? cut.slice(0, space) : cut}…`;
}

function fits(url: string | null): string | null {
  return url !== null && url.length <= 2_000 ? url : null;
}
