import type { Request, Response } from 'express';

/**
 * The Content-Security-Policy of every blob the gateway serves. Solutions are self-contained HTML
 * (inline styles, images as data URIs); nothing may run or load: no scripts, no fetches, no frames.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export interface BlobResponse {
  readonly body: Buffer;
  readonly contentType: string;
  /** `immutable`: an asset version never changes (user-scoped, cacheable); `no-store`: a share link. */
  readonly caching: 'immutable' | 'no-store';
}

function contentTypeHeader(contentType: string): string {
  const type = contentType.trim();
  return /^text\//i.test(type) && !/;\s*charset=/i.test(type) ? `${type}; charset=utf-8` : type;
}

/** `bytes=a-b` / `bytes=a-` / `bytes=-n` of a body of `size` bytes; `undefined` if not satisfiable, `null` if absent or multi-range. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | undefined | null {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return null;
  const [, from = '', to = ''] = match;
  if (from === '' && to === '') return null;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return undefined;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return undefined;
  return { start, end };
}

/**
 * Sends a blob with the strict CSP, `nosniff`, no referrer, and single-range support (video seeking).
 */
export function sendBlob(request: Request, response: Response, blob: BlobResponse): void {
  response.setHeader('Content-Type', contentTypeHeader(blob.contentType));
  response.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  response.setHeader('Cache-Control', blob.caching === 'immutable' ? 'private, max-age=31536000, immutable' : 'no-store');
  response.setHeader('Accept-Ranges', 'bytes');
  const size = blob.body.length;
  const range = parseRange(request.headers.range, size);
  if (range === undefined) {
    response.status(416).setHeader('Content-Range', `bytes */${size}`);
    response.end();
    return;
  }
  if (range === null) {
    response.status(200).setHeader('Content-Length', String(size));
    response.end(blob.body);
    return;
  }
  response.status(206);
  response.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  response.setHeader('Content-Length', String(range.end - range.start + 1));
  response.end(blob.body.subarray(range.start, range.end + 1));
}
