import { classifyAddress, parseIpv6 } from './ip-address-policy.js';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['169.254.169.254', 'link_local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
  ])('IPv4 %s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link_local'],
    ['2002:7f00:0001::1', 'loopback'],
    ['2002:0808:0808::1', 'tunnel'],
    ['2001:0::1', 'tunnel'],
    ['2001:db8::1', 'documentation'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fe80::1', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'site_local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
  ])('IPv6 %s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it('refuses what is not an address, and zone ids', () => {
    expect(classifyAddress('localhost')).toBe('invalid');
    expect(classifyAddress('fe80::1%eth0')).toBe('invalid');
    expect(classifyAddress('1.2.3')).toBe('invalid');
  });

  it('parses every IPv6 text form to the same bytes', () => {
    const expected = parseIpv6('0:0:0:0:0:ffff:7f00:1');
    expect(parseIpv6('::ffff:127.0.0.1')).toEqual(expected);
    expect(parseIpv6('[::ffff:7f00:1]')).toEqual(expected);
    expect(parseIpv6('1:2:3:4:5:6:1.2.3.4')).toEqual(Uint8Array.from([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4]));
  });
});
