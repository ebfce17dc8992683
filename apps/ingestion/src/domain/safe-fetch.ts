import { safeFetch as fetchUserUrl, type FetchedResource, type SafeFetchOptions, UrlFetchError } from '@openpaw/providers';
import { MediaRejectedError } from './media-rejection.js';

export { DEFAULT_FETCH_CONTENT_TYPES, systemResolver, type FetchedResource, type HostResolver, type ResolvedAddress, type SafeFetchOptions } from '@openpaw/providers';

/** The shared safe URL fetch (libs/providers), its refusals as ingestion's typed rejections. */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions = {}): Promise<FetchedResource> {
  try {
    return await fetchUserUrl(rawUrl, options);
  } catch (error) {
    if (error instanceof UrlFetchError) throw new MediaRejectedError(error.reason, error.detail);
    throw error;
  }
}
