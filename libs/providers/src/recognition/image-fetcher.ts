import { safeFetch, type SafeFetchOptions } from '../web/safe-fetch.js';

export interface FetchedImage {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly finalUrl: string;
}

/** Brings an image URL's bytes in; throws `UrlFetchError` when it may not or cannot. */
export interface ImageFetcher {
  fetch(url: string, options?: { readonly signal?: AbortSignal }): Promise<FetchedImage>;
}

export const IMAGE_CONTENT_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/heic', 'image/heif', 'image/tiff'];

/**
 * Image URLs found by a search engine are user-grade input: they go through the platform's safe
 * fetcher (every hop's address vetted and pinned, size and type bounded).
 */
export class SafeImageFetcher implements ImageFetcher {
  constructor(private readonly options: Omit<SafeFetchOptions, 'signal'> = {}) {}

  async fetch(url: string, options: { readonly signal?: AbortSignal } = {}): Promise<FetchedImage> {
    const fetched = await safeFetch(url, {
      maxBytes: 20 * 1024 * 1024,
      timeoutMs: 15_000,
      allowedContentTypes: IMAGE_CONTENT_TYPES,
      ...this.options,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    return { bytes: fetched.bytes, contentType: fetched.contentType, finalUrl: fetched.finalUrl };
  }
}
