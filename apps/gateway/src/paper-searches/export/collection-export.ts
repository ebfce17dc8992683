import { mergeAccumulated, type PaperCollection, type PaperSearchView, toBibtex, toCslJson, toRis } from '@openpaw/contracts';
import type { ExportFormat } from '../paper-searches.schemas.js';

/**
 * The collection a search exports: its result once completed; while it waits at checkpoint 2, the
 * collection under review with the papers accumulated so far; nothing before the first collection.
 */
export function exportableCollection(view: PaperSearchView): PaperCollection | undefined {
  if (view.result !== null) return view.result;
  const open = view.checkpoint;
  if (open?.kind === 'result_review') return mergeAccumulated(open.payload.collection, open.payload.accumulatedPapers);
  return undefined;
}

export interface ExportedFile {
  readonly contentType: string;
  readonly extension: string;
  readonly body: string;
}

/** BibTeX, RIS or CSL-JSON of a collection's papers (the research service's own export functions, in the contracts lib). */
export function exportCollection(collection: PaperCollection, format: ExportFormat): ExportedFile {
  switch (format) {
    case 'bibtex':
      return { contentType: 'application/x-bibtex; charset=utf-8', extension: 'bib', body: toBibtex(collection.papers) };
    case 'ris':
      return { contentType: 'application/x-research-info-systems; charset=utf-8', extension: 'ris', body: toRis(collection.papers) };
    case 'csl-json':
      return { contentType: 'application/vnd.citationstyles.csl+json; charset=utf-8', extension: 'json', body: JSON.stringify(toCslJson(collection.papers), null, 2) };
  }
}
