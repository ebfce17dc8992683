import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, ImportLibraryReferences, type LibraryReferencesImported, type MessageData } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { type CommandPublisher, COMMAND_PUBLISHER, GATEWAY_SOURCE } from '../../runs/ports.js';
import { type EntryStart, type LibraryFileFormat, libraryParts, LIBRARY_PART_MAX_BYTES } from './library-parts.js';
import { LibraryReplies } from './library-replies.js';

export interface ImportLibraryCommand {
  readonly userId: string;
  readonly format: 'bibtex' | 'ris';
  readonly content: string;
}

/** What became of one part of a streamed file, or of an entry too large to send (progress, in order). */
export type LibraryFileProgress =
  | { readonly event: 'part'; readonly part: number; readonly bytesRead: number; readonly result: ImportLibraryResult }
  | { readonly event: 'oversized'; readonly line: number; readonly bytes: number; readonly reason: string };

/** A streamed file's import: every part's answer summed; `pending` while any part is still queued. */
export interface LibraryFileSummary {
  readonly status: 'imported' | 'pending';
  readonly parts: number;
  readonly bytesRead: number;
  readonly added: number;
  readonly updated: number;
  /** Entries left out: by the research service (`part`, its `entry` within the part) or here (`line`: too large to send). */
  readonly skipped: readonly { readonly part?: number; readonly entry?: number; readonly line?: number; readonly reason: string }[];
  /** Parts the research service has not answered within the wait (queued; imported later). */
  readonly pendingParts: readonly number[];
}

export type ImportLibraryResult =
  | {
      readonly kind: 'imported';
      readonly importId: string;
      /** `skipped`: as the research service named them, with the entry's line in the file once the gateway has found it. */
      readonly data: Pick<MessageData<typeof LibraryReferencesImported>, 'added' | 'updated'> & { readonly skipped: readonly { readonly entry: number; readonly line?: number; readonly reason: string }[] };
    }
  | { readonly kind: 'pending'; readonly importId: string };

/**
 * Imports BibTeX or RIS references into the caller's library (the `library` source of their paper
 * searches): `ImportLibraryReferences` to the research service, then a bounded wait for its answer.
 * The same file from the same user is the same import (its id and command id derive from the content).
 */
@Injectable()
export class ImportLibraryHandler {
  constructor(
    private readonly replies: LibraryReplies,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * A whole library file, read as it arrives (up to 50 MB): split into parts of whole entries, each
   * imported as its own ImportLibraryReferences (idempotent by its content), one after the other so
   * the file is never held whole. `onProgress` hears each part's answer as it comes.
   * Throws `LibraryFileTooLargeError` once the file passes the limit (the parts before it stay imported).
   */
  async importFile(userId: string, format: LibraryFileFormat, chunks: AsyncIterable<Uint8Array | string>, onProgress: (progress: LibraryFileProgress) => void | Promise<void>): Promise<LibraryFileSummary> {
    let added = 0;
    let updated = 0;
    let parts = 0;
    let bytesRead = 0;
    const skipped: LibraryFileSummary['skipped'][number][] = [];
    const pendingParts: number[] = [];
    for await (const item of libraryParts(chunks, format)) {
      if (item.kind === 'oversized') {
        const reason = `entry starting on line ${item.line} is ${item.bytes} bytes, more than the ${LIBRARY_PART_MAX_BYTES} one import carries: not imported`;
        skipped.push({ line: item.line, reason });
        await onProgress({ event: 'oversized', line: item.line, bytes: item.bytes, reason });
        continue;
      }
      parts = item.part;
      bytesRead = item.bytesRead;
      const answer = await this.execute({ userId, format, content: item.text });
      // The part's skipped entries with their lines in the file, in the progress line and the summary.
      const result: ImportLibraryResult = answer.kind === 'pending' ? answer : { ...answer, data: { ...answer.data, skipped: withFileLines(item.entries, answer.data.skipped) } };
      if (result.kind === 'pending') pendingParts.push(item.part);
      else {
        added += result.data.added;
        updated += result.data.updated;
        skipped.push(...result.data.skipped.map((s) => ({ part: item.part, ...s })));
      }
      await onProgress({ event: 'part', part: item.part, bytesRead: item.bytesRead, result });
    }
    return { status: pendingParts.length === 0 ? 'imported' : 'pending', parts, bytesRead, added, updated, skipped, pendingParts };
  }

  async execute(command: ImportLibraryCommand): Promise<ImportLibraryResult> {
    const digest = createHash('sha256').update(command.format).update('\u0000').update(command.content).digest('hex');
    const importId = deterministicUuid('library-import', command.userId, digest);
    const commandId = deterministicUuid(importId, ImportLibraryReferences.subject);
    const traceparent = currentTraceparent();
    const reply = await this.replies.request(commandId, { timeoutMs: this.config.startWaitMs }, () =>
      this.publisher.publish(
        ImportLibraryReferences,
        { importId, userId: command.userId, format: command.format, content: command.content },
        { id: commandId, source: GATEWAY_SOURCE, correlationId: importId, subject: importId, userId: command.userId, ...(traceparent === undefined ? {} : { traceparent }) },
      ),
    );
    if (reply === undefined) return { kind: 'pending', importId };
    return { kind: 'imported', importId, data: { added: reply.data.added, updated: reply.data.updated, skipped: reply.data.skipped } };
  }
}

/**
 * The research service names a skipped BibTeX entry by its head (`@article{key: why`) and its place in
 * the part it was sent; the user needs the file's line. Each reason is matched to the part's entries
 * by head, in order (a key used twice takes its occurrences one after the other), and the line is
 * added to the item and to its reason. A reason that names no entry of the part keeps its entry index alone.
 */
export function withFileLines(entries: readonly EntryStart[], skipped: readonly { readonly entry: number; readonly reason: string }[]): { entry: number; line?: number; reason: string }[] {
  const used = new Set<number>();
  return skipped.map((s) => {
    // By prefix: a key may itself hold ':' (`DBLP:journals/...`).
    const at = entries.findIndex((e, i) => !used.has(i) && (s.reason.startsWith(`${e.head}:`) || s.reason.startsWith(`${e.head}}:`)));
    if (at < 0) return { entry: s.entry, reason: s.reason };
    used.add(at);
    const line = entries[at]!.line;
    return { entry: s.entry, line, reason: `line ${line}: ${s.reason}` };
  });
}
