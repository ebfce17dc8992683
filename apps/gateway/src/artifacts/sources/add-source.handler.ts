import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AddSource, deterministicUuid, type MessageData, SourceIndexed, type SourceContent, SourceRejected } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import type { BlobStore } from '@openpaw/providers/blob';
import { COMMAND_PUBLISHER, type CommandPublisher, GATEWAY_SOURCE } from '../../runs/ports.js';
import { BLOB_STORE } from '../../assets/blobs/blob-store.provider.js';
import { ArtifactReplies } from '../replies/artifact-replies.js';

export type SourceInput =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'file'; readonly bytes: Buffer; readonly contentType: string; readonly filename?: string };

export interface AddSourceCommand {
  readonly userId: string;
  readonly notebookId: string;
  /** Set to replace an existing source; else derived from the content (the same content twice is one source). */
  readonly sourceId?: string;
  readonly title?: string;
  readonly input: SourceInput;
  /** How long to wait for the artifacts service to index it (0: answer at once). */
  readonly waitMs: number;
  readonly signal?: AbortSignal;
}

export type AddSourceResult =
  | { readonly kind: 'indexed'; readonly data: MessageData<typeof SourceIndexed> }
  | { readonly kind: 'rejected'; readonly data: MessageData<typeof SourceRejected> }
  | { readonly kind: 'pending'; readonly sourceId: string };

function sha256(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}

/** A user id as one blob-key segment. */
function userSegment(userId: string): string {
  return /^[A-Za-z0-9_@=-]{1,64}$/.test(userId) ? userId : `u-${sha256(userId).slice(0, 32)}`;
}

/**
 * Adds (or replaces) a notebook source: an uploaded file goes to blob storage first (only its key
 * travels), then `AddSource` goes to the artifacts service, whose answer (`SourceIndexed` /
 * `SourceRejected`) is awaited for up to `waitMs`.
 */
@Injectable()
export class AddSourceHandler {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly replies: ArtifactReplies,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
  ) {}

  async execute(command: AddSourceCommand): Promise<AddSourceResult> {
    const { content, digest } = await this.contentOf(command);
    const sourceId = command.sourceId ?? deterministicUuid('notebook-source', command.userId, command.notebookId, digest);
    const commandId = randomUUID();
    const traceparent = currentTraceparent();
    const reply = await this.replies.request(commandId, { timeoutMs: command.waitMs, signal: command.signal }, () =>
      this.publisher.publish(
        AddSource,
        { sourceId, userId: command.userId, notebookId: command.notebookId, content, ...(command.title === undefined ? {} : { title: command.title }) },
        { id: commandId, source: GATEWAY_SOURCE, correlationId: sourceId, subject: sourceId, userId: command.userId, ...(traceparent === undefined ? {} : { traceparent }) },
      ),
    );
    if (reply?.type === SourceIndexed.subject) return { kind: 'indexed', data: reply.data };
    if (reply?.type === SourceRejected.subject) return { kind: 'rejected', data: reply.data };
    return { kind: 'pending', sourceId };
  }

  private async contentOf(command: AddSourceCommand): Promise<{ content: SourceContent; digest: string }> {
    const { input } = command;
    switch (input.kind) {
      case 'text':
        return { content: { kind: 'text', text: input.text }, digest: `text:${sha256(input.text.trim())}` };
      case 'url': {
        const url = new URL(input.url);
        url.hash = '';
        return { content: { kind: 'url', url: url.href }, digest: `url:${sha256(url.href)}` };
      }
      case 'file': {
        const hash = sha256(input.bytes);
        const blobKey = `notebook-sources/${userSegment(command.userId)}/${hash}`;
        const blobs = this.blobs;
        // Content-addressed: the same file uploaded again is already there.
        if ((await blobs.head(blobKey)) === undefined) {
          await blobs.put(blobKey, input.bytes, { contentType: input.contentType, metadata: { userId: command.userId } });
        }
        const filename = input.filename?.slice(0, 255);
        return {
          content: { kind: 'file', blobKey, contentType: input.contentType.slice(0, 200), byteLength: input.bytes.length, ...(filename === undefined ? {} : { filename }) },
          digest: `file:${hash}`,
        };
      }
    }
  }
}
