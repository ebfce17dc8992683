import { isIPv4, isIPv6 } from 'node:net';

/** Why an address may not be fetched from; `public` is the only verdict that allows a connection. */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link_local'
  | 'unique_local'
  | 'site_local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'tunnel'
  | 'invalid';

interface Ipv4Range {
  readonly base: number;
  readonly prefix: number;
  readonly cls: AddressClass;
}

/** IANA special-purpose IPv4 registry entries that must never be reached from a user-supplied URL. */
const IPV4_BLOCKED: readonly Ipv4Range[] = [
  { base: ipv4(0, 0, 0, 0), prefix: 8, cls: 'unspecified' },
  { base: ipv4(10, 0, 0, 0), prefix: 8, cls: 'private' },
  { base: ipv4(100, 64, 0, 0), prefix: 10, cls: 'shared' },
  { base: ipv4(127, 0, 0, 0), prefix: 8, cls: 'loopback' },
  { base: ipv4(169, 254, 0, 0), prefix: 16, cls: 'link_local' },
  { base: ipv4(172, 16, 0, 0), prefix: 12, cls: 'private' },
  { base: ipv4(192, 0, 0, 0), prefix: 24, cls: 'reserved' },
  { base: ipv4(192, 0, 2, 0), prefix: 24, cls: 'documentation' },
  { base: ipv4(192, 88, 99, 0), prefix: 24, cls: 'tunnel' },
  { base: ipv4(192, 168, 0, 0), prefix: 16, cls: 'private' },
  { base: ipv4(198, 18, 0, 0), prefix: 15, cls: 'benchmarking' },
  { base: ipv4(198, 51, 100, 0), prefix: 24, cls: 'documentation' },
  { base: ipv4(203, 0, 113, 0), prefix: 24, cls: 'documentation' },
  { base: ipv4(224, 0, 0, 0), prefix: 4, cls: 'multicast' },
  { base: ipv4(255, 255, 255, 255), prefix: 32, cls: 'broadcast' },
  { base: ipv4(240, 0, 0, 0), prefix: 4, cls: 'reserved' },
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

/** Parses a canonical dotted quad (what DNS and the WHATWG URL parser produce) to a uint32. */
export function parseIpv4(text: string): number | undefined {
  if (!isIPv4(text)) return undefined;
  const parts = text.split('.').map(Number);
  const [a, b, c, d] = parts;
  if (a === undefined || b === undefined || c === undefined || d === undefined) return undefined;
  return ipv4(a, b, c, d);
}

/** Parses any RFC 4291 text form (compressed, embedded dotted quad) to 16 bytes; zone ids are refused. */
export function parseIpv6(text: string): Uint8Array | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (bare.includes('%') || !isIPv6(bare)) return undefined;
  let head = bare;
  const tailWords: number[] = [];
  const lastColon = bare.lastIndexOf(':');
  const tail = bare.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    if (v4 === undefined) return undefined;
    head = bare.slice(0, lastColon + 1);
    // "::1.2.3.4" leaves "::" and "ab::1.2.3.4" leaves "ab::"; a single trailing colon is a separator.
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
    tailWords.push(v4 >>> 16, v4 & 0xffff);
  }
  const [left = '', right] = head.split('::');
  const leftWords = left === '' ? [] : left.split(':').map((w) => Number.parseInt(w, 16));
  const rightWords = right === undefined || right === '' ? [] : right.split(':').map((w) => Number.parseInt(w, 16));
  const explicit = leftWords.length + rightWords.length + tailWords.length;
  const zeros = right === undefined ? 0 : 8 - explicit;
  const words = [...leftWords, ...new Array<number>(zeros).fill(0), ...rightWords, ...tailWords];
  if (words.length !== 8 || words.some((w) => !Number.isInteger(w) || w < 0 || w > 0xffff)) return undefined;
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >>> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

export function classifyIpv4(address: number): AddressClass {
  for (const range of IPV4_BLOCKED) {
    const mask = maskOf(range.prefix);
    if ((address & mask) >>> 0 === (range.base & mask) >>> 0) return range.cls;
  }
  return 'public';
}

function prefixMatches(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const take = Math.min(8, bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    const index = bit / 8;
    if (((bytes[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

function embeddedIpv4(bytes: Uint8Array, offset: number): number {
  return (((bytes[offset] ?? 0) << 24) | ((bytes[offset + 1] ?? 0) << 16) | ((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0)) >>> 0;
}

export function classifyIpv6(bytes: Uint8Array): AddressClass {
  const allZeroUpTo = (n: number): boolean => bytes.subarray(0, n).every((b) => b === 0);
  if (allZeroUpTo(16)) return 'unspecified';
  if (allZeroUpTo(15) && bytes[15] === 1) return 'loopback';
  // Forms that carry an IPv4 address are judged by that address, so ::ffff:127.0.0.1 is loopback.
  if (allZeroUpTo(10) && bytes[10] === 0xff && bytes[11] === 0xff) return classifyIpv4(embeddedIpv4(bytes, 12));
  if (allZeroUpTo(12)) return classifyIpv4(embeddedIpv4(bytes, 12));
  if (prefixMatches(bytes, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96)) return classifyIpv4(embeddedIpv4(bytes, 12));
  if (prefixMatches(bytes, [0x20, 0x02], 16)) {
    const inner = classifyIpv4(embeddedIpv4(bytes, 2));
    return inner === 'public' ? 'tunnel' : inner;
  }
  if (prefixMatches(bytes, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48)) return 'private';
  if (prefixMatches(bytes, [0x01, 0x00, 0, 0, 0, 0, 0, 0], 64)) return 'reserved';
  if (prefixMatches(bytes, [0x20, 0x01, 0x0d, 0xb8], 32)) return 'documentation';
  if (prefixMatches(bytes, [0x3f, 0xff, 0xf0, 0x00], 20)) return 'documentation';
  // Teredo hides an obfuscated IPv4 client; no legitimate problem source needs it.
  if (prefixMatches(bytes, [0x20, 0x01, 0x00, 0x00], 32)) return 'tunnel';
  if (prefixMatches(bytes, [0x20, 0x01, 0x00, 0x10], 28)) return 'reserved';
  if (prefixMatches(bytes, [0x20, 0x01, 0x00, 0x20], 28)) return 'reserved';
  if (prefixMatches(bytes, [0xfc], 7)) return 'unique_local';
  if (prefixMatches(bytes, [0xfe, 0x80], 10)) return 'link_local';
  if (prefixMatches(bytes, [0xfe, 0xc0], 10)) return 'site_local';
  if (prefixMatches(bytes, [0xff], 8)) return 'multicast';
  // Only 2000::/3 is allocated for global unicast; everything else is unassigned or special.
  if (!prefixMatches(bytes, [0x20], 3)) return 'reserved';
  return 'public';
}

/** Classifies an IP literal of either family; anything that does not parse is `invalid`. */
export function classifyAddress(address: string): AddressClass {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return classifyIpv4(v4);
  const v6 = parseIpv6(address);
  if (v6 !== undefined) return classifyIpv6(v6);
  return 'invalid';
}
