import { bypassesProxy, parseNoProxy } from '../config-fields/no-proxy.js';
import { redactedProxyUrl, type ProxySettings } from '../config-fields/target-proxy.js';
import { huntable } from './redact.js';

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

/** A URL's user or password as meant: percent-decoded, or as written where that is no valid encoding (`100%`). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The Proxy-Authorization a proxy URL's credentials make (Basic, as Go sends them). */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  return `Basic ${Buffer.from(`${decoded(proxy.username)}:${decoded(proxy.password)}`).toString('base64')}`;
}

/**
 * Every form a proxy's password can come back in from a proxy (or the hop behind it) that echoes
 * Proxy-Authorization: the header's value, its base64, `user:password` and the password, decoded
 * and as written in the URL. Forms shorter than MIN_SECRET_LENGTH are left: a password that short
 * is still hidden inside its longer forms, and replacing it alone would mangle ordinary text and
 * point at it wherever `[REDACTED]` stood in text a reader knows. None without a password.
 */
export function proxySecrets(proxy: URL): string[] {
  const authorization = proxyAuthorization(proxy);
  if (!proxy.password || !authorization) return [];
  const [user, password] = [decoded(proxy.username), decoded(proxy.password)];
  return huntable([
    authorization,
    authorization.slice('Basic '.length),
    `${user}:${password}`,
    `${proxy.username}:${proxy.password}`,
    password,
    proxy.password,
  ]);
}
