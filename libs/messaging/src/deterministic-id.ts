import { createHash } from 'node:crypto';

/** Keeps these ids apart from any other sha256-derived UUIDs. FROZEN: changing it changes every derived id. */
const NAMESPACE = 'openpaw:deterministic-id:v1';

/**
 * A UUID derived from `parts` (sha256, version nibble 5, RFC 9562 variant), so a service that
 * handles a redelivered command publishes its reply under the same id and JetStream (within the
 * duplicate window) and the consumer's dedup drop the second copy. Parts are length-prefixed, so
 * `('ab', 'c')` and `('a', 'bc')` differ.
 */
export function deterministicId(...parts: string[]): string {
  if (parts.length === 0) throw new Error('deterministicId needs at least one part');
  const hash = createHash('sha256').update(NAMESPACE);
  for (const part of parts) hash.update(`\u0000${Buffer.byteLength(part)}:`).update(part);
  const bytes = hash.digest();
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
