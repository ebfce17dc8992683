/**
 * What the bytes are, judged by their magic numbers only. A declared content type or file name is a
 * claim by the uploader; the decoder we hand the bytes to must be chosen from the bytes themselves.
 */
export type SniffedMediaType =
  | { readonly kind: 'png' }
  | { readonly kind: 'jpeg' }
  | { readonly kind: 'webp' }
  | { readonly kind: 'heif'; readonly brand: string }
  | { readonly kind: 'pdf' }
  | { readonly kind: 'gif' }
  | { readonly kind: 'tiff' }
  | { readonly kind: 'svg' }
  | { readonly kind: 'unknown' };

/** HEIF-family brands (ISO/IEC 23008-12 and AVIF); anything else in an ftyp box is not an image we take. */
const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis']);

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((value, i) => bytes[offset + i] === value);
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}

export function sniffMediaType(bytes: Uint8Array): SniffedMediaType {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { kind: 'png' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { kind: 'jpeg' };
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && ascii(bytes, 8, 12) === 'WEBP') return { kind: 'webp' };
  if (bytes.length >= 12 && ascii(bytes, 4, 8) === 'ftyp') {
    const major = ascii(bytes, 8, 12);
    if (HEIF_BRANDS.has(major)) return { kind: 'heif', brand: major };
    // Some writers put a generic major brand first and the HEIF brand among the compatible ones.
    const boxSize = ((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) | ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0);
    const end = Math.min(bytes.length, Math.max(16, boxSize));
    for (let offset = 16; offset + 4 <= end; offset += 4) {
      const brand = ascii(bytes, offset, offset + 4);
      if (HEIF_BRANDS.has(brand)) return { kind: 'heif', brand };
    }
    return { kind: 'unknown' };
  }
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return { kind: 'pdf' };
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return { kind: 'gif' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return { kind: 'tiff' };
  const head = ascii(bytes, 0, Math.min(bytes.length, 256)).trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return { kind: 'svg' };
  return { kind: 'unknown' };
}
