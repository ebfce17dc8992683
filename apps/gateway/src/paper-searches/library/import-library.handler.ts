import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { deterministicUuid, ImportLibraryReferences, type LibraryReferencesImported, type MessageData } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { type CommandPublisher, COMMAND_PUBLISHER, GATEWAY_SOURCE } from '../../runs/ports.js';
import { LibraryReplies } from './library-replies.js';

export interface ImportLibraryCommand {
  readonly userId: string;
  readonly format: 'bibtex' | 'ris';
  readonly content: string;
}

export type ImportLibraryResult =
  | { readonly kind: 'imported'; readonly importId: string; readonly data: Pick<MessageData<typeof LibraryReferencesImported>, 'added' | 'updated' | 'skipped'> }
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
