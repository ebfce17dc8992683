import { isIPv4, isIPv6 } from 'node:net';

/** Why an address is not one a webhook may be delivered to. */
export interface BlockedAddress {
  /** What the range is for: `loopback`, `private`, `link-local`, ... */
  readonly kind: string;
  /** The range it falls in (for an IPv6 address embedding an IPv4 one: the IPv4 range). */
  readonly range: string;
}

interface Range {
  readonly kind: string;
  readonly cidr: string;
  readonly bytes: readonly number[];
  readonly prefix: number;
}

const range = (kind: string, cidr: string): Range => {
  const [network = '', prefix = ''] = cidr.split('/');
  const bytes = isIPv4(network) ? parseIPv4(network) : parseIPv6(network);
  if (bytes === undefined) throw new Error(`bad range ${cidr}`);
  return { kind, cidr, bytes, prefix: Number(prefix) };
};

/** IPv4 ranges that are not the public internet (IANA special-purpose registry). */
const IPV4_BLOCKED: readonly Range[] = [
  range('unspecified', '0.0.0.0/8'),
  range('private', '10.0.0.0/8'),
  range('shared (carrier-grade NAT)', '100.64.0.0/10'),
  range('loopback', '127.0.0.0/8'),
  range('link-local', '169.254.0.0/16'),
  range('private', '172.16.0.0/12'),
  range('IETF protocol assignments', '192.0.0.0/24'),
  range('documentation', '192.0.2.0/24'),
  range('6to4 relay anycast', '192.88.99.0/24'),
  range('private', '192.168.0.0/16'),
  range('benchmarking', '198.18.0.0/15'),
  range('documentation', '198.51.100.0/24'),
  range('documentation', '203.0.113.0/24'),
  range('multicast', '224.0.0.0/4'),
  range('reserved', '240.0.0.0/4'),
];

/**
 * IPv6 prefixes that carry an IPv4 address (connecting to one reaches that IPv4 address): the
 * embedded address is classified instead. `offset` is the byte where it starts.
 */
const IPV6_EMBEDDING_IPV4: readonly (Range & { readonly offset: number })[] = [
  { ...range('IPv4-mapped', '::ffff:0:0/96'), offset: 12 },
  { ...range('NAT64', '64:ff9b::/96'), offset: 12 },
  { ...range('6to4', '2002::/16'), offset: 2 },
];

/** IPv6 ranges that are not the public internet; beyond them, whatever is outside global unicast (2000::/3) is refused too. */
const IPV6_BLOCKED: readonly Range[] = [
  range('unspecified', '::/128'),
  range('loopback', '::1/128'),
  range('IPv4-compatible (deprecated)', '::/96'),
  range('local-use NAT64', '64:ff9b:1::/48'),
  range('discard-only', '100::/64'),
  range('Teredo tunnel', '2001::/32'),
  range('documentation', '2001:db8::/32'),
  range('unique-local', 'fc00::/7'),
  range('link-local', 'fe80::/10'),
  range('site-local (deprecated)', 'fec0::/10'),
  range('multicast', 'ff00::/8'),
];
const GLOBAL_UNICAST = range('global unicast', '2000::/3');

/**
 * The range that keeps `address` (an IPv4 or IPv6 address as a resolver or a URL gives it) from
 * being a webhook's destination, or undefined for a public address. Not an IP address at all is
 * blocked too: only a vetted address is ever connected to.
 */
export function blockedAddress(address: string): BlockedAddress | undefined {
  if (isIPv4(address)) return inRanges(parseIPv4(address) ?? [], IPV4_BLOCKED);
  const bytes = isIPv6(address) ? parseIPv6(address) : undefined;
  if (bytes === undefined) return { kind: 'not an IP address', range: address };
  for (const embedding of IPV6_EMBEDDING_IPV4) {
    if (!matches(bytes, embedding)) continue;
    const ipv4 = bytes.slice(embedding.offset, embedding.offset + 4);
    const blocked = inRanges(ipv4, IPV4_BLOCKED);
    return blocked === undefined ? undefined : { kind: `${embedding.kind} ${blocked.kind}`, range: `${embedding.cidr} of ${blocked.range}` };
  }
  return inRanges(bytes, IPV6_BLOCKED) ?? (matches(bytes, GLOBAL_UNICAST) ? undefined : { kind: 'not global unicast', range: `outside ${GLOBAL_UNICAST.cidr}` });
}

function inRanges(bytes: readonly number[], ranges: readonly Range[]): BlockedAddress | undefined {
  const found = ranges.find((r) => matches(bytes, r));
  return found === undefined ? undefined : { kind: found.kind, range: found.cidr };
}

function matches(bytes: readonly number[], r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  for (let bit = 0; bit < r.prefix; bit += 1) {
    const index = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((bytes[index] ?? 0) & mask) !== ((r.bytes[index] ?? 0) & mask)) return false;
  }
  return true;
}

function parseIPv4(address: string): number[] | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.map(Number);
}

/** 16 bytes of an IPv6 address (a zone id such as `%eth0` is dropped; a trailing dotted IPv4 is read as its 4 bytes). */
function parseIPv6(address: string): number[] | undefined {
  let text = address.split('%')[0] ?? '';
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const ipv4 = parseIPv4(text.slice(lastColon + 1));
    if (ipv4 === undefined) return undefined;
    tail = ipv4;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string | undefined): string[] => (half === undefined || half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0]);
  const rest = groupsOf(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array.from({ length: halves.length === 1 ? 0 : missing }, () => '0'), ...rest];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  const bytes = groups.flatMap((g) => {
    const value = Number.parseInt(g, 16);
    return [value >> 8, value & 0xff];
  });
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}
