import { createHash } from 'node:crypto';

/** Image types a problem photo may have, recognised by their leading bytes (the client's claim is not trusted). */
export const ACCEPTED_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/tiff', 'image/avif', 'image/heic'] as const;
export type AcceptedImageType = (typeof ACCEPTED_IMAGE_TYPES)[number];

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  return bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** The image type of `bytes` by magic number, or `undefined` when it is none we accept. */
export function sniffImageType(bytes: Uint8Array): AcceptedImageType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'image/tiff';
  if (startsWith(bytes, ascii('ftyp'), 4)) {
    const brand = String.fromCharCode(...bytes.subarray(8, 12));
    if (brand === 'avif' || brand === 'avis') return 'image/avif';
    if (['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1'].includes(brand)) return 'image/heic';
  }
  return undefined;
}

/** A user id as one blob-key segment: itself when it is plainly safe, else a hash of it. */
export function userKeySegment(userId: string): string {
  return /^[A-Za-z0-9_@|+=-][A-Za-z0-9._@|+=-]{0,127}$/.test(userId) && !/^\.+$/.test(userId)
    ? userId
    : `u-${createHash('sha256').update(userId).digest('hex').slice(0, 32)}`;
}

/** Where an uploaded image lives: `uploads/<userId>/<sha256 of the bytes>` (the same photo twice is one blob). */
export function uploadBlobKey(userId: string, sha256Hex: string): string {
  return `uploads/${userKeySegment(userId)}/${sha256Hex}`;
}

/** `10 MB`-style size for messages: the largest binary unit that divides it, else bytes. */
export function formatBytes(bytes: number): string {
  const units: readonly (readonly [string, number])[] = [
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ];
  for (const [unit, size] of units) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
