import { createHash } from 'node:crypto';

/**
 * The idempotency key of a problem submission (spec 01: `sha256(problem_signature + user_id + intent)`).
 * At submission the problem signature is not known yet (ingestion computes it), so the gateway keys
 * on a digest of the submitted content instead: the normalised text, the image bytes or the URL.
 * Pure: the same content, user and intent always give the same key, so the same run id.
 */

export type SubmittedContent =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'url'; readonly url: string }
  | { readonly kind: 'image'; readonly bytes: Uint8Array };

function sha256Hex(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * The text as the key sees it: NFKC (full-width digits, ligatures, compatibility forms folded),
 * lower case, whitespace runs folded, and whitespace dropped where it does not separate two word
 * characters (`2x+3=7` and `2x + 3 = 7` are the same problem; `a b` and `ab` are not).
 */
export function normaliseSubmissionText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/ (?=[^\p{L}\p{N}_])|(?<=[^\p{L}\p{N}_]) /gu, '');
}

/** The URL as the key sees it: parsed and re-serialised (scheme and host lower case, default port dropped), fragment removed. */
export function normaliseSubmissionUrl(url: string): string {
  const parsed = new URL(url.trim());
  parsed.hash = '';
  return parsed.href;
}

/**
 * `<kind>:<sha256 hex>` of the content: the normalised text, the raw image bytes (the same file
 * uploaded twice), or the normalised URL. It travels in `StartRun` as `contentDigest`.
 */
export function contentDigestOf(content: SubmittedContent): string {
  switch (content.kind) {
    case 'text':
      return `text:${sha256Hex(normaliseSubmissionText(content.text))}`;
    case 'url':
      return `url:${sha256Hex(normaliseSubmissionUrl(content.url))}`;
    case 'image':
      return `image:${sha256Hex(content.bytes)}`;
  }
}

/** sha256 hex of (content digest, user id, intent), each length-prefixed so no two triples collide. */
export function problemIdempotencyKey(contentDigest: string, userId: string, intent: string): string {
  const hash = createHash('sha256');
  for (const part of [contentDigest, userId, intent]) hash.update(`${part.length}:${part}\n`);
  return hash.digest('hex');
}
