import { z } from 'zod';
import { parseNoProxy } from './no-proxy.js';

/** A proxy URL as it may be shown: its password replaced, as Prometheus shows it. */
export function redactedProxyUrl(u: URL): string {
  if (!u.password) return u.href;
  const shown = new URL(u.href);
  shown.password = 'xxxxx';
  return shown.href;
}

/** http or https proxies, credentials allowed (`http://user:password@proxy:3128`): never echoed back in an error. */
const proxyUrl = z.string().superRefine((s, ctx) => {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not a URL (expected e.g. http://proxy.example:3128)' });
    return;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `scheme "${u.protocol.replace(/:$/, '')}" is not supported: use http or https` });
  } else if (u.pathname !== '/' || u.search || u.hash) {
    ctx.addIssue({ code: 'custom', message: `${redactedProxyUrl(u)}: a proxy URL has no path, query or fragment` });
  }
});

const noProxy = z.string().superRefine((s, ctx) => {
  const parsed = parseNoProxy(s);
  if ('bad' in parsed) ctx.addIssue({ code: 'custom', message: `"${parsed.bad}" is not a host, domain, IP address or CIDR range` });
});

/** The proxy keys of every target, named as in Prometheus' `http_config`. */
export const proxyFields = {
  proxy_url: proxyUrl.optional(),
  no_proxy: noProxy.optional(),
  proxy_from_environment: z.boolean().default(false),
};

export interface ProxySettings {
  proxy_url?: string | undefined;
  no_proxy?: string | undefined;
  proxy_from_environment: boolean;
}

/** What the keys mean only together: checked on each list of targets (the keys sit beside the others, in each kind's schema). */
export function proxySettings(list: readonly ProxySettings[], ctx: z.RefinementCtx): void {
  list.forEach((t, i) => {
    if (t.proxy_url !== undefined && t.proxy_from_environment) {
      ctx.addIssue({ code: 'custom', path: [i, 'proxy_from_environment'], message: 'set together with proxy_url: choose one' });
    }
    if (t.no_proxy !== undefined && t.proxy_url === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [i, 'no_proxy'],
        message: t.proxy_from_environment ? 'used only with proxy_url (with proxy_from_environment, NO_PROXY says it)' : 'set without proxy_url',
      });
    }
  });
}
