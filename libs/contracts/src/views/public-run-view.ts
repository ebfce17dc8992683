import { z } from 'zod';
import { checkpoint, paperCollection, resultCheckpointPayload } from '../messages/paper-search-model.js';
import { paperSearchView } from '../messages/paper-search-run.js';
import { RESEARCH_WORKFLOW, researchView, shareInfo } from '../messages/research-flow.js';
import { PAPER_SEARCH } from '../workflow-types.js';

/**
 * A run's view (RunStateChanged.view) is written for the platform as well as for people: some of its
 * fields are storage keys the platform reads back (a claim check's blob key, a share page's blob key)
 * and that no client may see. Each workflow declares them here, by path from the view's root; every
 * route that serves a run view to a client serves `publicViewOf` it, and the typed routes parse it with
 * the public schemas below, which leave the same fields out.
 */
export const INTERNAL_VIEW_FIELDS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  // The stored whole collection (ADR 0031): the gateway's export reads it through the projection.
  [PAPER_SEARCH]: [
    ['result', 'wholePapers'],
    ['checkpoint', 'payload', 'collection', 'wholePapers'],
  ],
  // The share page's object in the blob store: clients get its signed URL.
  [RESEARCH_WORKFLOW]: [['shareInfo', 'blobKey']],
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `record` without the field at `path`; the same object when there is none (only the objects on the path are copied). */
function withoutField(record: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(record, head)) return record;
  if (rest.length === 0) {
    const { [head]: _internal, ...kept } = record;
    return kept;
  }
  const child = record[head];
  if (!isRecord(child)) return record;
  const publicChild = withoutField(child, rest);
  return publicChild === child ? record : { ...record, [head]: publicChild };
}

/**
 * The view a client may see: `view` without its workflow's internal fields. Cheap on every read: it
 * walks only the declared paths and copies only the objects on them; a view without internal fields
 * (or of a workflow that declares none) is returned as it is. Never changes `view`.
 */
export function publicViewOf(workflowType: string, view: Record<string, unknown>): Record<string, unknown> {
  const internal = INTERNAL_VIEW_FIELDS[workflowType];
  if (internal === undefined) return view;
  return internal.reduce(withoutField, view);
}

/**
 * Why a collection is shown as its message carried it although its papers were stored whole (set by
 * the gateway, which reads the stored list for every client): the list is past its retention, or it
 * cannot be read. Said per collection, so a client never takes the message's head for the list.
 */
export const storedPapersUnavailable = z
  .object({
    reason: z
      .enum(['gone', 'unreadable'])
      .describe(
        '`gone`: the stored list was deleted — the research service deletes a paper search\'s stored lists once the run has ended longer ago than its retention (`OPENPAW_RESEARCH_PAPER_LIST_RETENTION_DAYS`, 30 days by default). ' +
          '`unreadable`: the stored list is there but is not the list the collection refers to.',
      ),
    storedPapers: z.int().nonnegative().describe('How many papers the stored list held.'),
  })
  .describe(
    "Present when the collection's whole papers were stored (claim check) but cannot be served: `papers` then holds only what the run's message carried " +
      '(its first papers, abstracts possibly left out; `metadata.cuts` counts what is missing), and exports say so. Search again for the whole list.',
  );
export type StoredPapersUnavailable = z.infer<typeof storedPapersUnavailable>;

/** `StoredPapersUnavailable` in words (an export's note, the CLI's line); `[]` when the stored papers are served. */
export function describeStoredPapersUnavailable(unavailable: StoredPapersUnavailable | undefined): string[] {
  if (unavailable === undefined) return [];
  const why = unavailable.reason === 'gone' ? 'was deleted after its retention period (the search ended long ago)' : 'could not be read';
  const papers = `${unavailable.storedPapers} ${unavailable.storedPapers === 1 ? 'paper' : 'papers'}`;
  return [`the search's stored list of ${papers} ${why}: only the papers its view kept are here; search again for the whole list`];
}

/** A paper collection as clients see it: without the reference to its stored whole papers; with why they are not shown, when they cannot be. */
export const publicPaperCollection = paperCollection.omit({ wholePapers: true }).extend({ storedPapersUnavailable: storedPapersUnavailable.optional() });
export type PublicPaperCollection = z.infer<typeof publicPaperCollection>;

const [strategyCheckpoint, resultCheckpoint] = checkpoint.options;

/** The open review as clients see it: the collection without its storage key, and which of its papers cannot be marked relevant. */
export const publicResultCheckpointPayload = resultCheckpointPayload.extend({
  collection: publicPaperCollection,
  unmarkablePaperIds: z
    .array(z.string())
    .optional()
    .describe(
      'Papers of the collection shown (read whole from the stored list) that this review cannot keep if marked relevant: the search keeps marks from the papers its collection message carried and those kept before. ' +
        'Marking one relevant is refused (400); marking it irrelevant works. Absent or empty: every paper shown can be marked.',
    ),
});

/** `paperSearchView` as clients see it (`GET /paper-searches/:id`): no `wholePapers` in the result or the open checkpoint. */
export const publicPaperSearchView = paperSearchView.extend({
  checkpoint: z
    .discriminatedUnion('kind', [strategyCheckpoint, resultCheckpoint.extend({ payload: publicResultCheckpointPayload })])
    .nullable(),
  result: publicPaperCollection.nullable(),
});
export type PublicPaperSearchView = z.infer<typeof publicPaperSearchView>;

/** `researchView` as clients see it (`GET /research/:id`): the share page by its signed URL, not its blob key. */
export const publicResearchView = researchView.extend({ shareInfo: shareInfo.omit({ blobKey: true }).nullable() });
export type PublicResearchView = z.infer<typeof publicResearchView>;
