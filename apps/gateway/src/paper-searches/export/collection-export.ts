import {
  describeCuts,
  describeStoredPapersUnavailable,
  mergeAccumulated,
  PAPER_SEARCH,
  type PaperCollection,
  paperSearchView,
  type PaperSearchView,
  type ResultCuts,
  type StoredPapersUnavailable,
  toBibtex,
  toCslJson,
  toRis,
  withPapers,
} from '@openpaw/contracts';
import { keepablePaperIds, type ReviewPayload } from '../decide/keepable-papers.js';
import type { ExportFormat } from '../paper-searches.schemas.js';
import type { StoredPaperLists } from './stored-paper-lists.js';

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
  /** What the export lacks (limits' cuts, a shortened view), one sentence each; sent as the `OpenPaw-Export-Notes` header. */
  readonly notes: readonly string[];
}

/** The view's papers lost fields to fit one message (`papersTrimmed`): the export, read from the view, lacks them too. */
export const TRIMMED_VIEW_NOTE = 'abstracts (and, for very large collections, rationales and authors after the third) are left out: the collection was shortened to fit one message';

/**
 * BibTeX, RIS or CSL-JSON of a collection's papers (the research service's own export functions, in
 * the contracts lib). Nothing is cut silently: what the search's limits cut is in `notes`, and
 * BibTeX, whose readers skip `@comment`, also carries them in the file.
 */
export function exportCollection(collection: ServedCollection, format: ExportFormat, papersTrimmed = false, cuts: ResultCuts | undefined = collection.metadata.cuts): ExportedFile {
  const notes = [...describeStoredPapersUnavailable(collection.storedPapersUnavailable), ...describeCuts(cuts), ...(papersTrimmed ? [TRIMMED_VIEW_NOTE] : [])];
  switch (format) {
    case 'bibtex': {
      const comments = notes.map((note) => `@comment{OpenPaw export: ${note.replace(/[{}]/g, '')}}\n`).join('');
      return { contentType: 'application/x-bibtex; charset=utf-8', extension: 'bib', body: `${comments}${comments === '' ? '' : '\n'}${toBibtex(collection.papers)}`, notes };
    }
    case 'ris':
      return { contentType: 'application/x-research-info-systems; charset=utf-8', extension: 'ris', body: toRis(collection.papers), notes };
    case 'csl-json':
      return { contentType: 'application/vnd.citationstyles.csl+json; charset=utf-8', extension: 'json', body: JSON.stringify(toCslJson(collection.papers), null, 2), notes };
  }
}

/** A collection as the gateway serves it: with why its stored papers are not in it, when they cannot be read. */
export type ServedCollection = PaperCollection & { readonly storedPapersUnavailable?: StoredPapersUnavailable };

/** What an export is made from: the collection, whether any of its papers come shortened from the view, and what limits cut. */
export interface ExportSource {
  readonly collection: ServedCollection;
  readonly papersTrimmed: boolean;
  readonly cuts: ResultCuts | undefined;
}

/**
 * The collection with its papers whole: when the research service stored them (`wholePapers`, claim
 * check), they replace the view's, which may be shortened to fit a message; papers only the view holds
 * (kept in earlier iterations) follow, and only they can still be shortened. A stored list that is gone
 * or does not match its reference leaves the view's papers, said as before.
 */
export async function wholeCollection(collection: PaperCollection, papersTrimmed: boolean, lists: StoredPaperLists): Promise<ExportSource> {
  const ref = collection.wholePapers;
  if (ref === undefined) return { collection, papersTrimmed, cuts: collection.metadata.cuts };
  const read = await lists.read(ref);
  if ('unavailable' in read) {
    // The message's head is all there is: said on the collection, so no client takes it for the list.
    const storedPapersUnavailable: StoredPapersUnavailable = { reason: read.unavailable, storedPapers: ref.count };
    return { collection: { ...collection, storedPapersUnavailable }, papersTrimmed, cuts: collection.metadata.cuts };
  }
  const stored = read.papers;
  const storedIds = new Set(stored.map((p) => p.id));
  const viewOnly = collection.papers.filter((p) => !storedIds.has(p.id));
  return { collection: withPapers(collection, [...stored, ...viewOnly]), papersTrimmed: papersTrimmed && viewOnly.length > 0, cuts: ref.cuts };
}

/**
 * The view with its collections' papers whole (claim check): the result's and the open review's
 * papers read from the stored lists, their `cuts` what the stored papers lack (not what one message
 * could carry). A collection without a stored list stays as the view has it; so does one whose list is
 * gone or unreadable, with `storedPapersUnavailable` saying so.
 */
export async function viewWithWholePapers(view: PaperSearchView, lists: StoredPaperLists): Promise<PaperSearchView> {
  let papersTrimmed = view.papersTrimmed;
  const whole = async (collection: PaperCollection): Promise<PaperCollection> => {
    if (collection.wholePapers === undefined) return collection;
    const source = await wholeCollection(collection, view.papersTrimmed, lists);
    if (source.collection === collection) return collection;
    papersTrimmed = source.papersTrimmed;
    return { ...source.collection, metadata: { ...source.collection.metadata, cuts: source.cuts } };
  };
  const result = view.result === null ? null : await whole(view.result);
  const open = view.checkpoint;
  if (open?.kind !== 'result_review') return { ...view, result, papersTrimmed };
  const collection = await whole(open.payload.collection);
  // Shown now, but a relevant mark on them would be refused: said in advance, not at the decision.
  const keepable = keepablePaperIds(open.payload);
  const unmarkable = collection === open.payload.collection ? [] : collection.papers.filter((p) => !keepable.has(p.id)).map((p) => p.id);
  const payload: ReviewPayload & { readonly unmarkablePaperIds?: string[] } = { ...open.payload, collection, ...(unmarkable.length === 0 ? {} : { unmarkablePaperIds: unmarkable }) };
  return { ...view, result, checkpoint: { ...open, payload }, papersTrimmed };
}

/**
 * A run with a paper search's collections whole (claim check), for every route that serves a run view
 * (`GET /runs/:id`, the run list, the SSE stream, `GET /paper-searches/:id`): the projected view holds
 * what one message carried, which for a long list is its head, and no client is shown that head as the
 * list. Other runs, and paper searches with no stored list, are returned as they are.
 */
export async function runWithWholePapers<R extends { readonly workflowType: string; readonly view: Record<string, unknown> }>(run: R, lists: StoredPaperLists): Promise<R> {
  if (run.workflowType !== PAPER_SEARCH) return run;
  const parsed = paperSearchView.safeParse(run.view);
  if (!parsed.success) return run;
  const { result, checkpoint } = parsed.data;
  const stored = result?.wholePapers !== undefined || (checkpoint?.kind === 'result_review' && checkpoint.payload.collection.wholePapers !== undefined);
  return stored ? { ...run, view: await viewWithWholePapers(parsed.data, lists) } : run;
}
