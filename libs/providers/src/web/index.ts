export { type AddressClass, classifyAddress, parseIpv6 } from './ip-address-policy.js';
export {
  DEFAULT_FETCH_CONTENT_TYPES,
  safeFetch,
  systemResolver,
  UrlFetchError,
  type FetchedResource,
  type HostResolver,
  type ResolvedAddress,
  type SafeFetchOptions,
  type UrlFetchRefusal,
} from './safe-fetch.js';
export { decodeEntities, htmlToText, type HtmlReading, type HtmlReadingOptions, readHtml } from './html-to-text.js';
