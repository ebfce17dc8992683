import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Identity of a normalised image: its decoded pixels with their geometry, not the encoded file, so
 * the key does not change with the PNG encoder's settings or version.
 */
export function imageSha256(width: number, height: number, rgb: Uint8Array): string {
  return createHash('sha256').update(`rgb8:${width}x${height}:`).update(rgb).digest('hex');
}

/** Identity of a normalised problem text (UTF-8). */
export function textSha256(normalisedText: string): string {
  return sha256Hex(Buffer.from(normalisedText, 'utf8'));
}
