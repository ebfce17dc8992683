import { InvalidBlobKeyError } from './errors.js';

export const MAX_KEY_BYTES = 1024;
/** Leaves room for the local store's suffixes under the usual 255-byte file-name limit. */
export const MAX_SEGMENT_BYTES = 200;

/** Throws `InvalidBlobKeyError` unless `key` follows the BlobStore key rules; returns its segments. */
export function validateBlobKey(key: string): string[] {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidBlobKeyError(String(key), 'must not be empty');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) throw new InvalidBlobKeyError(key, `longer than ${MAX_KEY_BYTES} bytes`);
  if (/[\u0000-\u001f\u007f]/.test(key)) throw new InvalidBlobKeyError(key, 'contains NUL or a control character');
  if (key.includes('\\')) throw new InvalidBlobKeyError(key, 'contains a backslash');
  if (key.startsWith('/')) throw new InvalidBlobKeyError(key, 'is absolute');
  if (/^[A-Za-z]:/.test(key)) throw new InvalidBlobKeyError(key, 'looks like a drive path');
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(key)) throw new InvalidBlobKeyError(key, 'is not well-formed Unicode');
  const segments = key.split('/');
  for (const segment of segments) {
    if (segment === '') throw new InvalidBlobKeyError(key, 'has an empty path segment');
    if (segment === '.' || segment === '..') throw new InvalidBlobKeyError(key, `has a "${segment}" segment`);
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) throw new InvalidBlobKeyError(key, `has a segment longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  return segments;
}

/** Prefixes follow the key rules, except that they may be empty or end with `/`. */
export function validateBlobPrefix(prefix: string): void {
  if (prefix === '') return;
  validateBlobKey(prefix.endsWith('/') ? `${prefix}x` : prefix);
}
