import { htmlToText } from '@openpaw/providers';
import type { FetchSettings } from '../config.js';
import { MediaRejectedError } from '../domain/media-rejection.js';
import { DEFAULT_FETCH_CONTENT_TYPES, safeFetch } from '../domain/safe-fetch.js';
import type { UrlFetcher } from '../ports.js';

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * The service's URL fetcher: the domain's `safeFetch` (public addresses only, checked on every
 * redirect hop, size and time limits, content type checked) with the service's limits. An HTML page is
 * accepted too and handed on as its readable text (`text/plain`), which the pipeline then normalises
 * like a typed problem; images and plain text go through unchanged.
 */
export function createUrlFetcher(settings: FetchSettings): UrlFetcher {
  const allowedContentTypes = [...DEFAULT_FETCH_CONTENT_TYPES, ...HTML_TYPES];
  return async (url) => {
    const fetched = await safeFetch(url, {
      maxBytes: settings.maxBytes,
      timeoutMs: settings.timeoutMs,
      maxRedirects: settings.maxRedirects,
      allowedContentTypes,
      ...(settings.allowAddressClasses.length === 0 ? {} : { allowAddressClasses: settings.allowAddressClasses }),
      ...(settings.resolver === undefined ? {} : { resolver: settings.resolver }),
    });
    if (!HTML_TYPES.has(fetched.contentType)) return fetched;
    const text = htmlToText(decodeHtml(fetched.bytes));
    return { ...fetched, contentType: 'text/plain', bytes: Buffer.from(text, 'utf8') };
  };
}

/** UTF-8 when the bytes are valid UTF-8 (nearly every page), else Latin-1, which never fails. */
function decodeHtml(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    if (bytes.includes(0)) throw new MediaRejectedError('unreadable', 'HTML page is neither UTF-8 nor text');
    return bytes.toString('latin1');
  }
}
