import { OpenPawError } from '@openpaw/contracts';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { type AddressClass, classifyAddress } from './ip-address-policy.js';

/** Why a user-supplied URL was not fetched (the codes match `ingestion.MediaRejected`'s). */
export type UrlFetchRefusal = 'unsafe_url' | 'fetch_failed' | 'too_large' | 'unsupported_type';

export class UrlFetchError extends OpenPawError {
  readonly code = 'url_fetch_refused';
  override readonly name = 'UrlFetchError';

  constructor(
    readonly reason: UrlFetchRefusal,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has; injectable so tests control what a name points to. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

export interface SafeFetchOptions {
  readonly resolver?: HostResolver;
  /** Largest body accepted, in bytes; the stream is aborted as soon as it is exceeded. */
  readonly maxBytes?: number;
  /** Wall-clock budget for the whole fetch, DNS and every redirect included. */
  readonly timeoutMs?: number;
  readonly maxRedirects?: number;
  /** Media types (without parameters) the response may declare. */
  readonly allowedContentTypes?: readonly string[];
  /**
   * Address classes that are let through in addition to `public`. Only tests set this (to reach a
   * server on 127.0.0.1); production code never should.
   */
  readonly allowAddressClasses?: readonly AddressClass[];
  readonly userAgent?: string;
  readonly signal?: AbortSignal;
}

export interface FetchedResource {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly finalUrl: string;
  /** Every URL visited, the requested one first, with the address each was fetched from. */
  readonly hops: readonly { readonly url: string; readonly address: string }[];
}

export const DEFAULT_FETCH_CONTENT_TYPES: readonly string[] = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/heic',
  'image/heif',
  'image/avif',
  'application/pdf',
  'text/plain',
];

const DEFAULTS = {
  maxBytes: 20 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 5,
  userAgent: 'OpenPaw/1 (+user-supplied URL fetch)',
} as const;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a user-supplied URL without letting it reach the platform's own network: each hop's host is
 * resolved here, every address is vetted, and the socket connects to the vetted address (the request's
 * `lookup` is pinned to it), so a second DNS answer cannot switch the target (DNS rebinding). Redirects
 * are followed by hand, one vetted hop at a time.
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions = {}): Promise<FetchedResource> {
  const resolver = options.resolver ?? systemResolver;
  const maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? DEFAULTS.maxRedirects;
  const allowedTypes = new Set((options.allowedContentTypes ?? DEFAULT_FETCH_CONTENT_TYPES).map((t) => t.toLowerCase()));
  const allowedClasses = new Set<AddressClass>(['public', ...(options.allowAddressClasses ?? [])]);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('time limit exceeded')), options.timeoutMs ?? DEFAULTS.timeoutMs);
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, options.signal]);
  const hops: { url: string; address: string }[] = [];
  try {
    let url = parseFetchableUrl(rawUrl);
    for (let redirects = 0; ; redirects += 1) {
      const target = await vetHost(url, resolver, allowedClasses, signal);
      hops.push({ url: url.href, address: target.address });
      const response = await openRequest(url, target, options.userAgent ?? DEFAULTS.userAgent, signal);
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        response.destroy();
        const location = response.headers.location;
        if (location === undefined) throw new UrlFetchError('fetch_failed', `redirect ${status} without a Location header`);
        if (redirects >= maxRedirects) throw new UrlFetchError('fetch_failed', `more than ${maxRedirects} redirects`);
        url = parseFetchableUrl(new URL(location, url).href);
        continue;
      }
      if (status < 200 || status > 299) {
        response.destroy();
        throw new UrlFetchError('fetch_failed', `HTTP ${status} from ${url.host}`);
      }
      const contentType = mediaTypeOf(response.headers['content-type']);
      if (!allowedTypes.has(contentType)) {
        response.destroy();
        throw new UrlFetchError('unsupported_type', `content type "${contentType || 'missing'}" is not accepted`);
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        response.destroy();
        throw new UrlFetchError('too_large', `declared ${declared} bytes, limit ${maxBytes}`);
      }
      const bytes = await readBounded(response, maxBytes, signal);
      return { bytes, contentType, finalUrl: url.href, hops };
    }
  } catch (error) {
    if (error instanceof UrlFetchError) throw error;
    if (signal.aborted) throw new UrlFetchError('fetch_failed', `aborted: ${reasonText(signal.reason)}`);
    throw new UrlFetchError('fetch_failed', reasonText(error));
  } finally {
    clearTimeout(timer);
  }
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

function parseFetchableUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlFetchError('unsafe_url', 'not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlFetchError('unsafe_url', `scheme ${url.protocol} is not allowed`);
  }
  // Credentials in a URL are a classic way to disguise the real host; nothing legitimate needs them here.
  if (url.username !== '' || url.password !== '') throw new UrlFetchError('unsafe_url', 'credentials in URL');
  if (url.hostname === '') throw new UrlFetchError('unsafe_url', 'missing host');
  return url;
}

async function vetHost(
  url: URL,
  resolver: HostResolver,
  allowed: ReadonlySet<AddressClass>,
  signal: AbortSignal,
): Promise<ResolvedAddress> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  let addresses: readonly ResolvedAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await raceAbort(resolver(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new UrlFetchError('fetch_failed', `cannot resolve ${host}: ${reasonText(error)}`);
    }
  }
  if (addresses.length === 0) throw new UrlFetchError('fetch_failed', `${host} has no addresses`);
  // Every answer must be acceptable: a name that also points inside the network is refused outright
  // rather than trusting which of its answers we happen to pick.
  for (const candidate of addresses) {
    const cls = classifyAddress(candidate.address);
    if (!allowed.has(cls)) throw new UrlFetchError('unsafe_url', `${host} resolves to a ${cls} address (${candidate.address})`);
  }
  const first = addresses[0];
  if (first === undefined) throw new UrlFetchError('fetch_failed', `${host} has no addresses`);
  return first;
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(asError(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(asError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(asError(error));
      },
    );
  });
}

function openRequest(url: URL, target: ResolvedAddress, userAgent: string, signal: AbortSignal): Promise<IncomingMessage> {
  // The socket must connect to the address we vetted, never to a fresh DNS answer. Node may ask for a
  // single address or (with autoSelectFamily) for a list, so both shapes are answered.
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all === true) {
      (callback as (err: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else {
      callback(null, target.address, target.family);
    }
  };
  const requestFn = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = requestFn(url, {
      method: 'GET',
      lookup: pinned,
      // A pooled keep-alive socket could have been opened for a different vetted address.
      agent: false,
      headers: { 'user-agent': userAgent, accept: '*/*', 'accept-encoding': 'identity' },
      signal,
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end();
  });
}

function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

async function readBounded(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response) {
      const buffer = chunk as Buffer;
      total += buffer.length;
      if (total > maxBytes) {
        response.destroy();
        throw new UrlFetchError('too_large', `body exceeds ${maxBytes} bytes`);
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof UrlFetchError) throw error;
    if (signal.aborted) throw new UrlFetchError('fetch_failed', `aborted: ${reasonText(signal.reason)}`);
    throw new UrlFetchError('fetch_failed', `body read failed: ${reasonText(error)}`);
  }
  return Buffer.concat(chunks, total);
}
