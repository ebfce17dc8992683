import { addCuts, deterministicUuid, MAX_PAPERS_PER_MESSAGE, NO_CUTS, OpenPawError, type Paper, type PaperSetRef, type ResultCuts } from '@openpaw/contracts';
import { BlobNotFoundError, type BlobStore, InvalidBlobKeyError } from '@openpaw/providers';
import { z } from 'zod';
import { fitPapersToMessage } from './fit-papers-to-message.js';

/** Blob keys of stored paper lists start with this (one folder per run). */
export const PAPER_SET_PREFIX = 'paper-search';

/** The folder of one run's stored lists (what the retention sweep deletes). */
export function runPaperSetsPrefix(runId: string): string {
  return `${PAPER_SET_PREFIX}/${runId}/`;
}

/**
 * A command's stored list cannot be read as it says: gone (swept, or never stored), not a list of
 * papers, a count other than its reference's, or a key outside the run's folder. The command itself is
 * at fault, so redelivering it cannot help: the step fails at once (`invalid_input`, not retryable).
 */
export class PaperSetUnreadableError extends OpenPawError {
  readonly code = 'paper_set_unreadable';
  override readonly name = 'PaperSetUnreadableError';
}

/** The blob key of the list a command made: the same command (a redelivery) writes the same object. */
export function paperSetKey(runId: string, commandId: string): string {
  return `${runPaperSetsPrefix(runId)}${deterministicUuid('paper-set', commandId)}.json`;
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
  /** The shared blob store the lists live in; null when none could be opened (lists go inline). */
  constructor(readonly blobs: BlobStore | null) {}

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

  /**
   * A command's papers: read from the store when it carries `papersRef`, else its inline `papers`.
   * Throws `PaperSetUnreadableError` for a reference that cannot be honoured as it stands; a store that
   * cannot be reached (or is not configured on this replica) throws otherwise, and is redelivered.
   */
  async in<P extends Paper>(command: { readonly runId: string; readonly papers: readonly P[]; readonly papersRef?: PaperSetRef | undefined }, schema: z.ZodType<P>): Promise<P[]> {
    const ref = command.papersRef;
    if (ref === undefined) return [...command.papers];
    if (this.blobs === null) throw new Error(`paper set ${ref.blobKey}: this research service has no blob store to read it from (OPENPAW_BLOB_DIR or OPENPAW_GCS_BUCKET)`);
    const unreadable = (why: string) => new PaperSetUnreadableError(`stored paper list ${ref.blobKey} ${why}`);
    // A run reads only its own lists: a reference into another run's folder is not this command's to follow.
    if (!ref.blobKey.startsWith(runPaperSetsPrefix(command.runId))) throw unreadable(`is not a list of run ${command.runId}`);
    let body: Buffer;
    try {
      ({ body } = await this.blobs.get(ref.blobKey));
    } catch (error) {
      if (error instanceof BlobNotFoundError) throw unreadable('is gone (past its retention, or never stored)');
      if (error instanceof InvalidBlobKeyError) throw unreadable(`has an invalid key: ${error.message}`);
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw unreadable(`is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const parsed = z.array(schema).safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      throw unreadable(`does not hold valid papers (${issues.join('; ')})`);
    }
    if (parsed.data.length !== ref.count) throw unreadable(`holds ${parsed.data.length} papers, its reference says ${ref.count}`);
    return parsed.data;
  }
}
