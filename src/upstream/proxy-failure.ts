import { redactedProxyUrl } from '../config-fields/target-proxy.js';
import { UpstreamError, toUpstreamError } from './errors.js';

/** A proxy as vigil names it: in messages by its URL with the password `xxxxx`, in labels by its origin alone. */
export interface ProxyName {
  readonly shown: string;
  readonly origin: string;
}

export const proxyName = (proxy: URL): ProxyName => ({ shown: redactedProxyUrl(proxy), origin: proxy.origin });

/**
 * A failure that is the proxy's, not the upstream's (reason `proxy`): vigil's operator's to fix, and
 * no reason to page the on-call of every upstream behind it.
 */
export function proxyError(p: ProxyName, message: string, o: { status?: number; endpoint?: string } = {}): UpstreamError {
  const err = new UpstreamError('proxy', `${o.endpoint ? `${o.endpoint}: ` : ''}proxy ${p.shown}: ${message}`, o.status);
  err.proxy = p.origin;
  return err;
}

/** The code of an error or of the first cause that has one. */
function codeOf(e: unknown, depth = 0): string {
  const o = e as { code?: unknown; cause?: unknown } | undefined;
  if (typeof o?.code === 'string') return o.code;
  return depth < 4 && o?.cause ? codeOf(o.cause, depth + 1) : '';
}

/**
 * A failure of the connection to the proxy itself, told apart from the rest: refused, reset,
 * unreachable, its host unknown, its TLS (an https proxy), its connect timeout, or an answer that is
 * not HTTP. Anything else (the attempt's time ran out, an answer too large) is returned undefined:
 * the caller names it as it would without a proxy.
 */
export function proxyFailure(e: unknown, p: ProxyName, endpoint?: string): UpstreamError | undefined {
  if (e instanceof UpstreamError) return undefined;
  const err = toUpstreamError(e);
  const code = codeOf(e);
  const garbage = (e as { name?: unknown } | undefined)?.name === 'HTTPParserError' || code.startsWith('HPE_');
  const ours = err.reason === 'connect' || err.reason === 'tls' || code === 'UND_ERR_CONNECT_TIMEOUT' || garbage;
  return ours ? proxyError(p, err.message, endpoint === undefined ? {} : { endpoint }) : undefined;
}
