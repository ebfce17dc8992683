import { Inject, Injectable } from '@nestjs/common';
import { MediaNormalized, MediaRejected, type MessageData, type NormalizeMedia, type Submission } from '@openpaw/contracts';
import { answerOnceWith, type KeptReplyStore, type Reply, replyTo } from '@openpaw/messaging';
import { BlobNotFoundError, type BlobStore, InvalidBlobKeyError } from '@openpaw/providers';
import type { IngestionSettings } from '../../config.js';
import { type IngestedMedia, type IngestionOptions, type IngestionOutcome, type IngestionPorts, ingestProblem } from '../../domain/ingest-problem.js';
import type { RejectionReason } from '../../domain/media-rejection.js';
import type { ProblemSignature } from '../../domain/problem-signature.js';
import type { ExternalReadingGate, IngestionTenant } from '../../media/external-reading.js';
import { normalizedMediaKey, toContractSignature } from '../../media/contract-signature.js';
import {
  INGESTION_BLOBS,
  INGESTION_OCR,
  INGESTION_REPLIES,
  INGESTION_SETTINGS,
  INGESTION_URL_FETCHER,
  type UrlFetcher,
} from '../../ports.js';

export interface NormalizeMediaCommand {
  /** The command's envelope id: the reply's id derives from it and the saga matches the reply by it. */
  readonly commandId: string;
  readonly data: MessageData<typeof NormalizeMedia>;
}

type Rejection = Extract<IngestionOutcome, { readonly status: 'rejected' }>;

/**
 * NormalizeMedia: a typed text, a URL (fetched safely) or an upload (read from blob storage by key)
 * becomes the problem signature (normalised text and its hash, image hashes, pHash, quality, OCR
 * confidence, topic tags), with the normalised image kept at `normalized/<imageSha256>.png`, and is
 * answered MediaNormalized; any input that cannot be ingested is answered MediaRejected with its reason
 * code. Only infrastructure failures (blob store or database down, OCR engine dying) throw, so the
 * delivery is retried and, if it keeps failing, dead-lettered with the reason.
 *
 * Idempotent per command: the reply is kept before it is published, and a redelivered command gets the
 * kept reply (same event id) without fetching, OCR or blob writes. The kept reply matters for URLs,
 * whose content may change between deliveries.
 */
@Injectable()
export class NormalizeMediaHandler {
  constructor(
    @Inject(INGESTION_OCR) private readonly reader: ExternalReadingGate,
    @Inject(INGESTION_BLOBS) private readonly blobs: BlobStore,
    @Inject(INGESTION_URL_FETCHER) private readonly fetchUrl: UrlFetcher,
    @Inject(INGESTION_REPLIES) private readonly replies: KeptReplyStore,
    @Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings,
  ) {}

  execute(command: NormalizeMediaCommand): Promise<Reply> {
    return answerOnceWith(
      this.replies,
      command.commandId,
      async () => {
        const outcome = await this.ingest(command.data.submission, command.data.tenant);
        return outcome.status === 'rejected' ? rejectedReply(command, outcome) : this.normalizedReply(command, outcome.signature, outcome.media);
      },
      // A typed text is normalised in memory (nothing fetched, read or written): its look-up rides in
      // the keep. A URL or an upload is looked up first, so a redelivery fetches and reads nothing.
      { pure: command.data.submission.kind === 'text' },
    );
  }

  private async ingest(submission: Submission, tenant: IngestionTenant | undefined): Promise<IngestionOutcome | Rejection> {
    // An external reader reads only the images of a tenant whose policy allows it, within its cap.
    const ports: IngestionPorts = { reader: this.reader.forTenant(tenant), fetch: this.fetchUrl };
    const options: IngestionOptions = { maxTextLength: this.settings.maxTextLength, image: { maxInputBytes: this.settings.maxUploadBytes } };
    switch (submission.kind) {
      case 'text':
        return ingestProblem({ kind: 'text', text: submission.text }, ports, options);
      case 'url':
        return ingestProblem({ kind: 'url', url: submission.url }, ports, options);
      case 'upload': {
        const bytes = await this.readUpload(submission.blobKey, submission.byteLength);
        if (!(bytes instanceof Uint8Array)) return bytes;
        return ingestProblem({ kind: 'image', bytes }, ports, options);
      }
    }
  }

  /** The uploaded bytes, or why they cannot be had. A missing blob is the submission's fault, not an outage. */
  private async readUpload(key: string, declaredBytes: number): Promise<Uint8Array | Rejection> {
    const limit = this.settings.maxUploadBytes;
    const reject = (reason: RejectionReason, detail: string): Rejection => ({ status: 'rejected', reason, detail });
    if (!key.startsWith(this.settings.uploadKeyPrefix)) return reject('fetch_failed', `blob key is not an upload (must start with ${this.settings.uploadKeyPrefix})`);
    if (declaredBytes > limit) return reject('too_large', `upload of ${declaredBytes} bytes, limit ${limit}`);
    try {
      const info = await this.blobs.head(key);
      if (info === undefined) return reject('fetch_failed', `upload ${key} is not in blob storage`);
      if (info.size > limit) return reject('too_large', `upload of ${info.size} bytes, limit ${limit}`);
      const { body } = await this.blobs.get(key);
      if (body.length > limit) return reject('too_large', `upload of ${body.length} bytes, limit ${limit}`);
      return body;
    } catch (error) {
      if (error instanceof BlobNotFoundError) return reject('fetch_failed', `upload ${key} is not in blob storage`);
      if (error instanceof InvalidBlobKeyError) return reject('fetch_failed', error.message);
      throw error;
    }
  }

  private async normalizedReply(command: NormalizeMediaCommand, signature: ProblemSignature, media: IngestedMedia): Promise<Reply> {
    const data: MessageData<typeof MediaNormalized> = {
      runId: command.data.runId,
      commandId: command.commandId,
      mediaType: media.kind,
      signature: toContractSignature(signature, media.kind === 'image' ? media.ocr.confidence : undefined),
    };
    if (media.kind === 'image' && signature.imageSha256 !== undefined) {
      const key = normalizedMediaKey(signature.imageSha256);
      // Content-addressed: the same pixels always land on the same key, so an existing blob is the same.
      if ((await this.blobs.head(key)) === undefined) {
        await this.blobs.put(key, media.png, {
          contentType: 'image/png',
          metadata: { imageSha256: signature.imageSha256, width: String(media.width), height: String(media.height), sourceType: media.sourceType },
        });
      }
      return replyTo(command.commandId, MediaNormalized, { ...data, normalizedMediaKey: key });
    }
    return replyTo(command.commandId, MediaNormalized, data);
  }
}

function rejectedReply(command: NormalizeMediaCommand, rejection: Rejection): Reply {
  return replyTo(command.commandId, MediaRejected, {
    runId: command.data.runId,
    commandId: command.commandId,
    reason: rejection.reason,
    detail: rejection.detail.slice(0, 1_000),
    ...(rejection.reading === undefined ? {} : { reading: rejection.reading }),
  });
}
