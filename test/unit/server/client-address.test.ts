import { describe, expect, it } from 'vitest';
import { clientOf } from '../../../src/server/client-address.js';

/** Who a failed password check is held against: an IPv4 address, an IPv6 /64. */
describe('the client of a request', () => {
  it('is an IPv4 address as it is, an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(clientOf('192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('::FFFF:192.0.2.7')).toBe('192.0.2.7');
  });

  it('is the /64 of an IPv6 address, however the address is written: a host rotating through its /64 is one client', () => {
    const same = ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0:0:0:9', '2001:db8:1:2:3:4:5.6.7.8', '2001:db8:1:2::1%eth0'];
    expect(new Set(same.map(clientOf))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(clientOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
  });

  it('keeps what is not an address as it is (a unix socket has none)', () => {
    expect(clientOf(undefined)).toBe('');
    expect(clientOf('not-an-address')).toBe('not-an-address');
  });
});
