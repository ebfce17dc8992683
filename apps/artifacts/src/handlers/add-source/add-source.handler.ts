import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AddSource, type MessageData, SourceIndexed, SourceRejected, OpenPawError } from '@openpaw/contracts';
import { BlobNotFoundError, type BlobStore, type Embedder } from '@openpaw/providers';
import { type Reply, replyTo } from '@openpaw/messaging';
import type { ArtifactsSettings } from '../../config.js';
import { documentFormatOf, extractText, UnsupportedDocumentError } from '../../domain/sources/extract-text.js';
import { FetchRefusedError } from '../../domain/sources/safe-fetch.js';
import { CHUNKER_VERSION, chunkIdOf, chunkText } from '../../domain/text/chunker.js';
import { normaliseSourceText, titleFromText } from '../../domain/text/normalise.js';
import {
  ARTIFACTS_BLOBS,
  ARTIFACTS_EMBEDDER,
  ARTIFACTS_SETTINGS,
  type ChunkRecord,
  SOURCE_STORE,
  type SourceStore,
  URL_FETCHER,
  type UrlFetcher,
} from '../../ports.js';

export interface AddSourceCommand {
  readonly commandId: string;
  /** When the command was issued: an older command never overwrites a newer revision of the source. */
  readonly issuedAt: Date;
  readonly data: MessageData<typeof AddSource>;
}

type Rejection = MessageData<typeof SourceRejected>['reason'];

class SourceRejectedError extends OpenPawError {
  readonly code = 'source_rejected';
  constructor(
    readonly reason: Rejection,
    message: string,
  ) {
    super(message);
  }
}

/** The version of the index a chunk belongs to: the embedder's model and the chunker. */
export function embeddingVersionOf(embedder: Embedder): string {
  return `${embedder.model}:${CHUNKER_VERSION}`;
}

/**
 * AddSource: get the source's text (as given, fetched from its URL, or read from the uploaded file:
 * text, HTML or PDF), normalise it, chunk it (stable chunk ids), embed the chunks and store the
 * source with exactly these chunks. Answers SourceIndexed, or SourceRejected with the reason.
 */
@Injectable()
export class AddSourceHandler {
  constructor(
    @Inject(SOURCE_STORE) private readonly sources: SourceStore,
    @Inject(ARTIFACTS_EMBEDDER) private readonly embedder: Embedder,
    @Inject(ARTIFACTS_BLOBS) private readonly blobs: BlobStore,
    @Inject(URL_FETCHER) private readonly fetchUrl: UrlFetcher,
    @Inject(ARTIFACTS_SETTINGS) private readonly settings: ArtifactsSettings,
  ) {}

  async execute(command: AddSourceCommand): Promise<readonly Reply[]> {
    const { data } = command;
    const rejected = (reason: Rejection, detail: string): Reply[] => [
      replyTo(command.commandId, SourceRejected, { sourceId: data.sourceId, commandId: command.commandId, notebookId: data.notebookId, reason, detail }),
    ];
    let document: { text: string; title?: string; uri: string | null };
    try {
      document = await this.read(data.content);
    } catch (error) {
      if (error instanceof SourceRejectedError) return rejected(error.reason, error.message);
      throw error;
    }
    const text = normaliseSourceText(document.text);
    if (text === '') return rejected('empty', data.content.kind === 'file' || data.content.kind === 'url' ? 'no text could be extracted from the document' : 'the text is empty');

    const pieces = chunkText(text, { maxChars: this.settings.chunkMaxChars });
    const { vectors } = await this.embedder.embed(pieces);
    const embeddingVersion = embeddingVersionOf(this.embedder);
    const chunks: ChunkRecord[] = pieces.map((piece, ordinal) => ({
      chunkId: chunkIdOf(data.sourceId, ordinal, piece),
      ordinal,
      text: piece,
      embedding: vectors[ordinal] ?? new Float32Array(),
      embeddingVersion,
    }));
    const title = (data.title ?? document.title ?? titleFromText(text)).trim().slice(0, 300) || 'Untitled source';
    const contentSha256 = createHash('sha256').update(text).digest('hex');
    const outcome = await this.sources.upsert(
      { sourceId: data.sourceId, userId: data.userId, notebookId: data.notebookId, kind: data.content.kind, title, uri: document.uri, contentSha256, text },
      chunks,
      command.issuedAt,
    );
    switch (outcome) {
      case 'foreign':
        return rejected('not_found', 'no such source in this notebook');
      case 'stale':
        return rejected('superseded', 'a newer revision of this source was indexed already');
      case 'applied':
        return [
          replyTo(command.commandId, SourceIndexed, {
            sourceId: data.sourceId,
            commandId: command.commandId,
            notebookId: data.notebookId,
            title,
            kind: data.content.kind,
            contentSha256,
            chunkIds: chunks.map((c) => c.chunkId),
            embeddingVersion,
            characters: text.length,
          }),
        ];
    }
  }

  private async read(content: MessageData<typeof AddSource>['content']): Promise<{ text: string; title?: string; uri: string | null }> {
    switch (content.kind) {
      case 'text':
        return { text: content.text, uri: null };
      case 'url': {
        let fetched;
        try {
          fetched = await this.fetchUrl(content.url);
        } catch (error) {
          if (error instanceof FetchRefusedError) throw new SourceRejectedError(error.reason, error.message);
          throw error;
        }
        return { ...(await this.extract(fetched.body, fetched.contentType, new URL(fetched.url).pathname)), uri: fetched.url };
      }
      case 'file': {
        if (content.byteLength > this.settings.maxDocumentBytes) throw new SourceRejectedError('too_large', `the file is larger than ${this.settings.maxDocumentBytes} bytes`);
        let body: Buffer;
        try {
          body = (await this.blobs.get(content.blobKey)).body;
        } catch (error) {
          if (error instanceof BlobNotFoundError) throw new SourceRejectedError('not_found', 'the uploaded file is not in blob storage');
          throw error;
        }
        return { ...(await this.extract(body, content.contentType, content.filename)), uri: null };
      }
    }
  }

  private async extract(body: Buffer, contentType: string, filename: string | undefined): Promise<{ text: string; title?: string }> {
    try {
      return await extractText(body, documentFormatOf(body, contentType, filename));
    } catch (error) {
      if (error instanceof UnsupportedDocumentError) throw new SourceRejectedError('unsupported_type', error.message);
      throw new SourceRejectedError('unsupported_type', `the document cannot be read: ${(error as Error).message}`);
    }
  }
}
