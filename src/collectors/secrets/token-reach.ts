import { BlockList, isIP } from 'node:net';
import { hostOf, withoutTrailingSlash } from './node-addresses.js';
import type { DiscoverySource } from './node-discovery.js';

/**
 * Where vigil's token may go beyond the configured address: never to an address an upstream's
 * answer names unless the operator said so. A forged HA status or autopilot answer would otherwise
 * collect the token at every poll. The operator says so by listing the nodes (`nodes.addresses`), by
 * templating their addresses (`nodes.address_template`), or by allowing hosts in
 * `nodes.audit_check.send_token_to`: a host (`vault-1.internal`), a suffix (`.vault.internal`) or a
 * CIDR (`10.0.0.0/24`, `fd00::/64`) an IP literal's host falls in. A DNS name is matched as a name,
 * never resolved. Over https only, when the configured address is https. Pure; no I/O.
 */

/** How one entry of `send_token_to` is read; undefined when it is none of the three (the config check's error). */
export type TokenHost =
  { kind: 'host'; host: string } | { kind: 'suffix'; suffix: string } | { kind: 'cidr'; address: string; bits: number; family: 'ipv4' | 'ipv6' };

const NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

export function tokenHost(entry: string): TokenHost | undefined {
  const e = entry.trim().toLowerCase();
  const slash = e.indexOf('/');
  if (slash >= 0) {
    const address = e.slice(0, slash);
    const bits = Number(e.slice(slash + 1));
    const v = isIP(address);
    const max = v === 4 ? 32 : 128;
    if (!v || !/^\d{1,3}$/.test(e.slice(slash + 1)) || bits > max) return undefined;
    return { kind: 'cidr', address, bits, family: v === 4 ? 'ipv4' : 'ipv6' };
  }
  if (e.startsWith('.')) return NAME.test(e.slice(1)) && e.slice(1).includes('.') ? { kind: 'suffix', suffix: e } : undefined;
  if (isIP(e)) return { kind: 'host', host: e };
  return NAME.test(e) ? { kind: 'host', host: e } : undefined;
}

/** Whether a host (a URL's hostname: IPv6 in brackets) is one `send_token_to` allows: the CIDRs gathered in one list, once. */
export function hostAllowed(allowed: readonly TokenHost[]): (host: string) => boolean {
  const cidrs = new BlockList();
  for (const a of allowed) if (a.kind === 'cidr') cidrs.addSubnet(a.address, a.bits, a.family);
  return (rawHost) => {
    const host = rawHost.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    const ip = isIP(host);
    if (ip && cidrs.check(host, ip === 4 ? 'ipv4' : 'ipv6')) return true;
    return allowed.some((a) => (a.kind === 'host' ? a.host === host : a.kind === 'suffix' && host.endsWith(a.suffix) && host.length > a.suffix.length));
  };
}

export interface TokenReachInput {
  /** The target's configured address: the token goes there in any case. */
  readonly address: string;
  readonly sendTokenTo: readonly string[];
}

/**
 * Whether the token may go to a node's address, found from `source`: the configured address, every
 * node the operator listed or templated, and a discovered node whose host `send_token_to` allows
 * (over https when the configured address is https).
 */
export function tokenReach(i: TokenReachInput & { templated: boolean }): (node: string, source: DiscoverySource | undefined) => boolean {
  const configured = withoutTrailingSlash(i.address);
  const allowed = hostAllowed(i.sendTokenTo.flatMap((e) => tokenHost(e) ?? []));
  const https = configured.startsWith('https:');
  return (node, source) => {
    if (withoutTrailingSlash(node) === configured || source === 'configured' || (i.templated && source !== undefined)) return true;
    if (https && !node.startsWith('https:')) return false;
    const host = hostOf(node);
    return host !== undefined && allowed(host);
  };
}
