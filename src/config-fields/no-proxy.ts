import { BlockList, isIP } from 'node:net';

/**
 * `no_proxy`: the hosts a target reaches directly although a proxy is set, as Prometheus (Go's
 * httpproxy) reads them: a comma-separated list of `*` (every host), IP addresses, CIDR ranges and
 * domain names (`example.com` is the domain and its subdomains, `.example.com` or `*.example.com`
 * only its subdomains), each optionally with `:port`.
 */
export type NoProxyEntry =
  | { kind: 'any' }
  | { kind: 'ip'; ip: string; port?: number }
  | { kind: 'cidr'; range: BlockList; text: string }
  | { kind: 'domain'; domain: string; subdomainsOnly: boolean; port?: number };

const DOMAIN = /^(?:\*\.|\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

const family = (ip: string) => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');

function withPort(s: string): { host: string; port?: number } | undefined {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracketed) return { host: bracketed[1] ?? '', ...(bracketed[2] ? { port: Number(bracketed[2]) } : {}) };
  if (isIP(s)) return { host: s };
  const m = /^([^:]+)(?::(\d+))?$/.exec(s);
  if (!m) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { host: m[1] ?? '', ...(port !== undefined ? { port } : {}) };
}

function cidr(s: string): NoProxyEntry | undefined {
  const [ip = '', bits = ''] = s.split('/');
  const prefix = Number(bits);
  const max = isIP(ip) === 4 ? 32 : isIP(ip) === 6 ? 128 : 0;
  if (!max || !/^\d+$/.test(bits) || prefix > max) return undefined;
  const range = new BlockList();
  range.addSubnet(ip, prefix, family(ip));
  return { kind: 'cidr', range, text: s };
}

/** One entry, or undefined when it is none of the forms above. */
function entry(raw: string): NoProxyEntry | undefined {
  const s = raw.toLowerCase();
  if (s === '*') return { kind: 'any' };
  if (s.includes('/')) return cidr(s);
  const hp = withPort(s);
  if (!hp) return undefined;
  const port = hp.port !== undefined ? { port: hp.port } : {};
  if (isIP(hp.host)) return { kind: 'ip', ip: hp.host, ...port };
  if (!DOMAIN.test(hp.host)) return undefined;
  const subdomainsOnly = hp.host.startsWith('.') || hp.host.startsWith('*.');
  return { kind: 'domain', domain: hp.host.replace(/^\*?\./, ''), subdomainsOnly, ...port };
}

/** The entries of a `no_proxy` list, or the first one that cannot be read. */
export function parseNoProxy(list: string): { entries: NoProxyEntry[] } | { bad: string } {
  const entries: NoProxyEntry[] = [];
  for (const raw of list.split(',').map((e) => e.trim())) {
    if (raw === '') continue;
    const e = entry(raw);
    if (!e) return { bad: raw };
    entries.push(e);
  }
  return { entries };
}

/** Whether a target at `address` is reached directly. */
export function bypassesProxy(entries: readonly NoProxyEntry[], address: URL): boolean {
  const host = address.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = Number(address.port || (address.protocol === 'https:' ? 443 : 80));
  return entries.some((e) => {
    switch (e.kind) {
      case 'any':
        return true;
      case 'cidr':
        return isIP(host) !== 0 && e.range.check(host, family(host));
      case 'ip':
        return host === e.ip && (e.port === undefined || e.port === port);
      case 'domain':
        return (host.endsWith(`.${e.domain}`) || (!e.subdomainsOnly && host === e.domain)) && (e.port === undefined || e.port === port);
    }
  });
}
