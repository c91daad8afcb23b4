import { isIPv4, isIPv6 } from 'node:net';

/**
 * The client a request comes from, for throttling failed password checks: an IPv4 address as it
 * is, and an IPv6 address by its /64, since a single host usually holds a whole /64 and could
 * otherwise rotate through 2^64 addresses, each with a fresh start. An IPv4-mapped IPv6 address
 * counts as the IPv4 address it maps.
 */
export function clientOf(remoteAddress: string | undefined): string {
  const a = (remoteAddress ?? '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (!isIPv6(a)) return a;
  return `${hextets(a).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an IPv4 tail as two groups), without leading zeros. */
function hextets(address: string): string[] {
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const v6 = tail ? address.slice(0, tail.index) + ipv4Groups(tail.slice(1).map(Number)) : address;
  const [head = '', rest] = v6.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const groups = rest === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16).toString(16));
}

const ipv4Groups = (b: number[]) => `${(((b[0] ?? 0) << 8) | (b[1] ?? 0)).toString(16)}:${(((b[2] ?? 0) << 8) | (b[3] ?? 0)).toString(16)}`;
