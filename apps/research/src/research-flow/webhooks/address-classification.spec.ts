import { blockedAddress } from './address-classification.js';

describe('webhook address classification', () => {
  describe('refuses every address that is not the public internet', () => {
    it.each([
      // IPv4
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['10.0.0.1', 'private'],
      ['10.255.255.255', 'private'],
      ['100.64.0.1', 'shared (carrier-grade NAT)'],
      ['100.127.255.254', 'shared (carrier-grade NAT)'],
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.0.0.8', 'IETF protocol assignments'],
      ['192.0.2.10', 'documentation'],
      ['192.88.99.1', '6to4 relay anycast'],
      ['192.168.1.1', 'private'],
      ['198.18.0.1', 'benchmarking'],
      ['198.51.100.7', 'documentation'],
      ['203.0.113.9', 'documentation'],
      ['224.0.0.251', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.255', 'reserved'],
      // IPv6
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['febf:ffff::1', 'link-local'],
      ['fec0::1', 'site-local (deprecated)'],
      ['fc00::1', 'unique-local'],
      ['fd12:3456:789a::1', 'unique-local'],
      ['ff02::1', 'multicast'],
      ['ff05::1:3', 'multicast'],
      ['2001:db8::1', 'documentation'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo tunnel'],
      ['100::1', 'discard-only'],
      ['64:ff9b:1::1', 'local-use NAT64'],
      ['::7f00:1', 'IPv4-compatible (deprecated)'],
      ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
      ['4000::1', 'not global unicast'],
      ['::2', 'IPv4-compatible (deprecated)'],
      // IPv6 carrying an IPv4 address: the IPv4 address decides.
      ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
      ['::ffff:7f00:1', 'IPv4-mapped loopback'],
      ['0:0:0:0:0:ffff:7f00:0001', 'IPv4-mapped loopback'],
      ['::FFFF:A9FE:A9FE', 'IPv4-mapped link-local'],
      ['::ffff:10.1.2.3', 'IPv4-mapped private'],
      ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
      ['64:ff9b::a9fe:a9fe', 'NAT64 link-local'],
      ['64:ff9b::192.168.0.1', 'NAT64 private'],
      ['2002:7f00:1::', '6to4 loopback'],
      ['2002:a00:1::1', '6to4 private'],
      // Not an address at all.
      ['localhost', 'not an IP address'],
      ['127.1', 'not an IP address'],
      ['', 'not an IP address'],
    ])('%s: %s', (address, kind) => {
      expect(blockedAddress(address)?.kind).toBe(kind);
    });
  });

  describe('allows public addresses', () => {
    it.each([
      '1.1.1.1',
      '8.8.8.8',
      '93.184.216.34',
      '100.63.255.255', // just below carrier-grade NAT
      '100.128.0.0', // just above it
      '172.15.255.255', // just below 172.16/12
      '172.32.0.0', // just above it
      '169.253.255.255',
      '192.167.255.255',
      '223.255.255.255', // the last below multicast
      '2606:4700:4700::1111',
      '2a00:1450:4001:82a::200e',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8', // mapped public IPv4
      '64:ff9b::808:808', // NAT64 of 8.8.8.8
      '2002:808:808::1', // 6to4 of 8.8.8.8
    ])('%s', (address) => {
      expect(blockedAddress(address)).toBeUndefined();
    });
  });

  it('names the range it found the address in', () => {
    expect(blockedAddress('169.254.169.254')).toEqual({ kind: 'link-local', range: '169.254.0.0/16' });
    expect(blockedAddress('::ffff:127.0.0.1')).toEqual({ kind: 'IPv4-mapped loopback', range: '::ffff:0:0/96 of 127.0.0.0/8' });
    expect(blockedAddress('fd00::1')).toEqual({ kind: 'unique-local', range: 'fc00::/7' });
  });
});
