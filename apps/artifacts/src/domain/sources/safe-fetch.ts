import { OpenPawError } from '@openpaw/contracts';
import { safeFetch as fetchUserUrl, UrlFetchError } from '@openpaw/providers';

/** Why a URL source could not be fetched. */
export class FetchRefusedError extends OpenPawError {
  readonly code = 'fetch_refused';
  constructor(
    message: string,
    readonly reason: 'fetch_failed' | 'too_large',
  ) {
    super(message);
    this.name = 'FetchRefusedError';
  }
}

export interface FetchedDocument {
  readonly url: string;
  readonly contentType: string;
  readonly body: Buffer;
}

export interface SafeFetchOptions {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** Allow loopback and private addresses (local development and tests only). */
  readonly allowPrivateAddresses: boolean;
  readonly maxRedirects?: number;
}

/** What a notebook source may be. */
const SOURCE_CONTENT_TYPES = ['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'application/pdf'];

/**
 * GETs a user-supplied URL source through the platform's one safe fetcher (libs/providers: every
 * hop's addresses vetted and the socket pinned to them, redirects checked, deadline, size limit).
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<FetchedDocument> {
  try {
    const fetched = await fetchUserUrl(rawUrl, {
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      maxRedirects: options.maxRedirects ?? 3,
      allowedContentTypes: SOURCE_CONTENT_TYPES,
      ...(options.allowPrivateAddresses ? { allowAddressClasses: ['loopback', 'private'] as const } : {}),
    });
    return { url: fetched.finalUrl, contentType: fetched.contentType, body: fetched.bytes };
  } catch (error) {
    if (error instanceof UrlFetchError) throw new FetchRefusedError(error.message, error.reason === 'too_large' ? 'too_large' : 'fetch_failed');
    throw error;
  }
}
