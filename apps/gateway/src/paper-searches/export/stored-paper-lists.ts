import { Inject, Injectable, Optional } from '@nestjs/common';
import { type PaperSetRef, type ScoredPaper, scoredPaper, type StoredPapersUnavailable } from '@openpaw/contracts';
import { BlobNotFoundError, type BlobStore } from '@openpaw/providers/blob';
import { z } from 'zod';
import { BLOB_STORE } from '../../assets/blobs/blob-store.provider.js';

/** How much of the stored paper lists a gateway keeps read, and for how long. */
export interface StoredPaperListLimits {
  /** Bytes of stored JSON kept read (a parsed list takes a few times its JSON on the heap). */
  readonly maxBytes: number;
  /** A list read longer ago than this is read again (the retention sweep deletes lists of runs long ended). */
  readonly ttlMs: number;
}
export const STORED_PAPER_LIST_LIMITS = Symbol('STORED_PAPER_LIST_LIMITS');
/** 8 MiB: a few pages of the run list (a default collection of 100 papers is ~120 KB stored). */
export const DEFAULT_STORED_PAPER_LIST_LIMITS: StoredPaperListLimits = { maxBytes: 8 * 1024 * 1024, ttlMs: 10 * 60_000 };

interface ReadList {
  readonly papers: readonly ScoredPaper[];
  readonly bytes: number;
  readonly readAt: number;
}

/** A stored list as read for a collection: its papers, or why there are none to serve (`StoredPapersUnavailable`). */
export type StoredListRead = { readonly papers: readonly ScoredPaper[] } | { readonly unavailable: StoredPapersUnavailable['reason'] };

const storedPapers = z.array(scoredPaper);

/**
 * A paper search's stored collections (claim check), read for every route that serves its view.
 * A stored list never changes under its key (the key comes from the command that wrote it, and a
 * reply, once kept, is answered again without writing), so a list read once is kept read, bounded in
 * bytes and time: a page of `GET /runs`, a reload of it, or every state a run's event stream sends
 * reads each list once, not once per paper search per request; concurrent reads of one list share
 * one blob read. A list that is gone, unreadable or not of its reference's count is not kept.
 */
@Injectable()
export class StoredPaperLists {
  private readonly kept = new Map<string, ReadList>();
  private readonly reading = new Map<string, Promise<ReadList | 'gone' | undefined>>();
  private keptBytes = 0;
  private readonly limits: StoredPaperListLimits;

  constructor(
    @Inject(BLOB_STORE) private readonly blobs: Pick<BlobStore, 'get'>,
    @Optional() @Inject(STORED_PAPER_LIST_LIMITS) limits?: StoredPaperListLimits,
  ) {
    this.limits = limits ?? DEFAULT_STORED_PAPER_LIST_LIMITS;
  }

  /**
   * The stored papers of `ref`; else why there are none (the caller shows the view's and says so): the
   * list is `gone` (past its retention), or `unreadable` (not a list of papers, or not of `ref`'s count).
   */
  async read(ref: PaperSetRef): Promise<StoredListRead> {
    const list = this.fresh(ref.blobKey) ?? (await this.readShared(ref.blobKey));
    if (list === 'gone') return { unavailable: 'gone' };
    return list !== undefined && list.papers.length === ref.count ? { papers: list.papers } : { unavailable: 'unreadable' };
  }

  private fresh(blobKey: string): ReadList | undefined {
    const list = this.kept.get(blobKey);
    if (list === undefined) return undefined;
    this.forget(blobKey);
    if (Date.now() - list.readAt > this.limits.ttlMs) return undefined;
    this.keep(blobKey, list); // the most recently used last
    return list;
  }

  private readShared(blobKey: string): Promise<ReadList | 'gone' | undefined> {
    const pending = this.reading.get(blobKey);
    if (pending !== undefined) return pending;
    const read = this.readBlob(blobKey).finally(() => this.reading.delete(blobKey));
    this.reading.set(blobKey, read);
    return read;
  }

  /** The list, `gone` when the store has no such object, undefined when it is not a list of papers. */
  private async readBlob(blobKey: string): Promise<ReadList | 'gone' | undefined> {
    let list: ReadList;
    try {
      const { body } = await this.blobs.get(blobKey);
      list = { papers: storedPapers.parse(JSON.parse(body.toString('utf8'))), bytes: body.length, readAt: Date.now() };
    } catch (error) {
      if (error instanceof BlobNotFoundError) return 'gone';
      if (error instanceof z.ZodError || error instanceof SyntaxError) return undefined;
      throw error;
    }
    // One list larger than a quarter of the budget would push out the lists of a whole page.
    if (list.bytes <= this.limits.maxBytes / 4) this.keep(blobKey, list);
    return list;
  }

  private keep(blobKey: string, list: ReadList): void {
    this.kept.set(blobKey, list);
    this.keptBytes += list.bytes;
    for (const [oldest] of this.kept) {
      if (this.keptBytes <= this.limits.maxBytes) break;
      this.forget(oldest);
    }
  }

  private forget(blobKey: string): void {
    const list = this.kept.get(blobKey);
    if (list === undefined) return;
    this.kept.delete(blobKey);
    this.keptBytes -= list.bytes;
  }
}
