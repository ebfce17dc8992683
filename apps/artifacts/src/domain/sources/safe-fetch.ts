import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Why a URL source could not be fetched. */
export class FetchRefusedError extends Error {
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

/** Loopback, private, link-local, CGNAT, multicast, unspecified and documentation ranges: never fetched for a user. */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

async function assertPublicHost(url: URL, options: SafeFetchOptions): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusedError(`only http(s) URLs are fetched, not ${url.protocol}`, 'fetch_failed');
  if (options.allowPrivateAddresses) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new FetchRefusedError(`${url.hostname} does not resolve`, 'fetch_failed');
  const blocked = addresses.find((a) => !isPublicAddress(a));
  if (blocked !== undefined) throw new FetchRefusedError(`${url.hostname} resolves to a non-public address (${blocked})`, 'fetch_failed');
}

/**
 * GETs a user-supplied URL: http(s) only, every hop's host resolved and refused when any address is
 * not public (unless allowed for development), redirects followed by hand (at most 3, each checked),
 * a deadline for the whole fetch, and a size limit enforced while reading.
 * (The resolved address is checked, not pinned: a DNS answer changing between check and connect is
 * not caught here; the ingestion service's fetcher is the place for that.)
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions): Promise<FetchedDocument> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  let url = new URL(rawUrl);
  for (let hop = 0; ; hop++) {
    await assertPublicHost(url, options);
    let response: Response;
    try {
      response = await fetch(url, { redirect: 'manual', signal: deadline, headers: { 'user-agent': 'OpenPaw-artifacts/1 (+source fetcher)', accept: 'text/html, text/plain, application/pdf;q=0.9, */*;q=0.5' } });
    } catch (error) {
      throw new FetchRefusedError(`fetching ${url.href} failed: ${(error as Error).message}`, 'fetch_failed');
    }
    if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
      await response.body?.cancel();
      if (hop >= (options.maxRedirects ?? 3)) throw new FetchRefusedError('too many redirects', 'fetch_failed');
      url = new URL(response.headers.get('location') ?? '', url);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new FetchRefusedError(`${url.href} answered HTTP ${response.status}`, 'fetch_failed');
    }
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > options.maxBytes) {
      await response.body?.cancel();
      throw new FetchRefusedError(`the document is larger than ${options.maxBytes} bytes`, 'too_large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body ?? []) {
        size += (chunk as Uint8Array).length;
        if (size > options.maxBytes) throw new FetchRefusedError(`the document is larger than ${options.maxBytes} bytes`, 'too_large');
        chunks.push(Buffer.from(chunk as Uint8Array));
      }
    } catch (error) {
      if (error instanceof FetchRefusedError) throw error;
      throw new FetchRefusedError(`reading ${url.href} failed: ${(error as Error).message}`, 'fetch_failed');
    }
    return { url: url.href, contentType: (response.headers.get('content-type') ?? 'application/octet-stream').toLowerCase(), body: Buffer.concat(chunks) };
  }
}
