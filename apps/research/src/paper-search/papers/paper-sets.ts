import { addCuts, deterministicUuid, MAX_PAPERS_PER_MESSAGE, NO_CUTS, type Paper, type PaperSetRef, type ResultCuts } from '@openpaw/contracts';
import type { BlobStore } from '@openpaw/providers';
import { z } from 'zod';
import { fitPapersToMessage } from './fit-papers-to-message.js';

/** Blob keys of stored paper lists start with this (one folder per run). */
export const PAPER_SET_PREFIX = 'paper-search';

/** The blob key of the list a command made: the same command (a redelivery) writes the same object. */
export function paperSetKey(runId: string, commandId: string): string {
  return `${PAPER_SET_PREFIX}/${runId}/${deterministicUuid('paper-set', commandId)}.json`;
}

/** Papers as a reply carries them: stored and referenced (`papersRef`, `papers` empty), or inline within one message's limits. */
export interface PapersOut<P extends Paper> {
  readonly papers: P[];
  readonly papersRef?: PaperSetRef;
  /** What one message's limits cut (nothing, when stored). */
  readonly cuts: ResultCuts;
}

/**
 * The claim check of paper search: lists of papers stored in the shared blob store, referenced in
 * messages by `PaperSetRef`, so no list is capped to what one NATS message carries. Without a blob
 * store (none could be opened) every list goes inline, capped, with the cuts counted as before.
 */
export class PaperSets {
  constructor(private readonly blobs: BlobStore | null) {}

  /**
   * A reply's papers: stored when the command asked for a reference (`papersByReference`) and a store
   * is open, else inline, capped to `MAX_PAPERS_PER_MESSAGE` and the message's byte budget.
   */
  async out<P extends Paper>(runId: string, commandId: string, papers: readonly P[], byReference: boolean | undefined): Promise<PapersOut<P>> {
    const papersRef = byReference === true ? await this.store(runId, commandId, papers) : null;
    if (papersRef !== null) return { papers: [], papersRef, cuts: NO_CUTS };
    const fitted = fitPapersToMessage(papers.slice(0, MAX_PAPERS_PER_MESSAGE));
    const overCount: ResultCuts = { papersLeftOut: Math.max(0, papers.length - MAX_PAPERS_PER_MESSAGE), abstractsShortened: 0, authorListsShortened: 0 };
    return { papers: fitted.papers, cuts: addCuts(overCount, fitted.cuts) };
  }

  /** Stores a command's list under its key (a redelivery overwrites the same object); null when no store is open. */
  async store(runId: string, commandId: string, papers: readonly Paper[]): Promise<PaperSetRef | null> {
    if (this.blobs === null) return null;
    const blobKey = paperSetKey(runId, commandId);
    await this.blobs.put(blobKey, JSON.stringify(papers), { contentType: 'application/json', metadata: { runId, papers: String(papers.length) } });
    return { blobKey, count: papers.length };
  }

  /** A command's papers: read from the store when it carries `papersRef`, else its inline `papers`. */
  async in<P extends Paper>(command: { readonly papers: readonly P[]; readonly papersRef?: PaperSetRef | undefined }, schema: z.ZodType<P>): Promise<P[]> {
    const ref = command.papersRef;
    if (ref === undefined) return [...command.papers];
    if (this.blobs === null) throw new Error(`paper set ${ref.blobKey}: this research service has no blob store to read it from (OPENPAW_BLOB_DIR or OPENPAW_GCS_BUCKET)`);
    const { body } = await this.blobs.get(ref.blobKey);
    const papers = z.array(schema).parse(JSON.parse(body.toString('utf8')));
    if (papers.length !== ref.count) throw new Error(`paper set ${ref.blobKey} holds ${papers.length} papers, its reference says ${ref.count}`);
    return papers;
  }
}
