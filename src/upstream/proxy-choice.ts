import { bypassesProxy, parseNoProxy } from '../config-fields/no-proxy.js';
import { redactedProxyUrl, type ProxySettings } from '../config-fields/target-proxy.js';

/** A proxy from the environment: `host:port` alone means http, as Go (and so Prometheus) reads it. */
function envProxyUrl(name: string, raw: string): URL {
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new Error(`${name}: not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${name}: ${redactedProxyUrl(u)}: scheme must be http or https`);
  return u;
}

function noProxyList(name: string, list: string) {
  const parsed = parseNoProxy(list);
  if ('bad' in parsed) throw new Error(`${name}: "${parsed.bad}" is not a host, domain, IP address or CIDR range`);
  return parsed.entries;
}

/**
 * The proxy a target's requests go through, or undefined when they go directly: `proxy_url` unless
 * `no_proxy` names the target's host, or with `proxy_from_environment` HTTPS_PROXY (https targets)
 * or HTTP_PROXY (http targets) unless NO_PROXY names it (upper case first, then lower case). Chosen
 * once per target and config: a target has one address.
 */
export function proxyFor(address: URL, p: ProxySettings, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  if (p.proxy_url !== undefined) {
    return bypassesProxy(noProxyList('no_proxy', p.no_proxy ?? ''), address) ? undefined : new URL(p.proxy_url);
  }
  if (!p.proxy_from_environment) return undefined;
  const name = address.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  const [varName, raw] = [name, name.toLowerCase()].map((n) => [n, env[n]] as const).find(([, v]) => v) ?? [name, undefined];
  if (!raw) return undefined;
  const noProxy = env.NO_PROXY ? ['NO_PROXY', env.NO_PROXY] : ['no_proxy', env.no_proxy ?? ''];
  return bypassesProxy(noProxyList(noProxy[0] ?? '', noProxy[1] ?? ''), address) ? undefined : envProxyUrl(varName, raw);
}

/** The Proxy-Authorization a proxy URL's credentials make (Basic, as Go sends them). */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
}
