import type { MediaNormalized, MediaRejected, MessageData } from '@openpaw/contracts';
import type { FetchedResource } from './domain/safe-fetch.js';

/** Injection tokens of the ingestion service's ports. */
export const INGESTION_SETTINGS = Symbol('openpaw.ingestion.settings');
export const INGESTION_BLOBS = Symbol('openpaw.ingestion.blobs');
export const INGESTION_OCR = Symbol('openpaw.ingestion.ocr');
export const INGESTION_URL_FETCHER = Symbol('openpaw.ingestion.urlFetcher');
export const INGESTION_REPLIES = Symbol('openpaw.ingestion.replies');

/** Fetches a submitted URL (safely: see `media/url-fetcher.ts`); refusals throw `MediaRejectedError`. */
export type UrlFetcher = (url: string) => Promise<FetchedResource>;

/** The answer to one NormalizeMedia command, kept before it is published and republished verbatim on redelivery. */
export type IngestionReply =
  | { readonly type: 'MediaNormalized'; readonly id: string; readonly data: MessageData<typeof MediaNormalized> }
  | { readonly type: 'MediaRejected'; readonly id: string; readonly data: MessageData<typeof MediaRejected> };

/** The `ingestion` schema's record of answered commands (table `command_replies`). */
export interface IngestionReplyStore {
  find(commandId: string): Promise<IngestionReply | undefined>;
  /** Keeps the reply unless one is already kept for the command; returns the kept one (the first wins). */
  save(commandId: string, reply: IngestionReply): Promise<IngestionReply>;
}
