import type { FetchedResource } from './domain/safe-fetch.js';

/** Injection tokens of the ingestion service's ports. */
export const INGESTION_SETTINGS = Symbol('openpaw.ingestion.settings');
export const INGESTION_BLOBS = Symbol('openpaw.ingestion.blobs');
export const INGESTION_OCR = Symbol('openpaw.ingestion.ocr');
export const INGESTION_URL_FETCHER = Symbol('openpaw.ingestion.urlFetcher');
/** The `ingestion` schema's kept replies (`KeptReplyStore` of `@openpaw/messaging`, table `command_replies`). */
export const INGESTION_REPLIES = Symbol('openpaw.ingestion.replies');

/** Fetches a submitted URL (safely: see `media/url-fetcher.ts`); refusals throw `MediaRejectedError`. */
export type UrlFetcher = (url: string) => Promise<FetchedResource>;
