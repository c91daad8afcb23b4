import { capText } from '../support/cap-text.js';

/** Why a collection failed: a label value on vigil_collector_failures_total and a field in the log line. */
export const REASONS = [
  'timeout',
  'connect',
  'proxy',
  'tls',
  'redirect',
  'http_4xx',
  'http_5xx',
  'rate_limited',
  'decode',
  'schema',
  'too_large',
  'sealed',
  'standby',
  'config',
  'internal',
] as const;
export type Reason = (typeof REASONS)[number];

/** A failed upstream call, as a value with a reason. Messages never carry tokens, and are capped (logged on every failed run, shown on / and /api/v1/targets). */
export class UpstreamError extends Error {
  /** How long the upstream asked us to wait before trying again (429, 503 with Retry-After). */
  retryAfterMs?: number;
  /** With reason `proxy`: the proxy's origin (scheme, host and port, never credentials), the `proxy` label it fails under. */
  proxy?: string;
  /** The connection closed under an idempotent request before any answer: sent once more at once (`sendAgainOnce`). */
  unanswered?: boolean;
  constructor(
    readonly reason: Reason,
    message: string,
    readonly status?: number,
  ) {
    super(capText(message));
    this.name = 'UpstreamError';
  }
}

/** Classifies anything thrown below a collection into an UpstreamError. */
export function toUpstreamError(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  const code = e?.code ?? '';
  const name = e?.name ?? '';
  const msg = e?.message ?? String(err);
  if (name === 'TimeoutError' || name === 'AbortError' || /TIMEOUT/.test(code)) {
    return new UpstreamError('timeout', `timed out: ${msg}`);
  }
  if (/^ERR_SSL_.*ALERT/.test(code)) {
    return new UpstreamError(
      'tls',
      `TLS: the upstream refused the connection (${/(?:sslv3|tlsv1\d*) alert [a-z ]+/i.exec(msg)?.[0] ?? code}): it requires a client certificate (tls.cert_file) or refused the one vigil presented, or the TLS version (tls.min_version)`,
    );
  }
  if (/^(ERR_TLS|ERR_SSL_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY))/.test(code) || /certificate/i.test(msg)) {
    return new UpstreamError('tls', `TLS: ${msg}`);
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return new UpstreamError('too_large', `answer headers larger than the limit: ${msg}`);
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return new UpstreamError('too_large', `answer larger than the limit: ${msg}`);
  if (/^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|UND_ERR_SOCKET|UND_ERR_CLOSED)/.test(code)) {
    return new UpstreamError('connect', `connection failed: ${msg.includes(code) ? msg : `${code} ${msg}`}`);
  }
  if (e?.cause && e.cause !== err) return toUpstreamError(e.cause);
  return new UpstreamError('internal', msg);
}

/**
 * Reads an error body into one message: `{"errors":["a","b"]}`, JSON:API objects
 * `{"errors":[{"status":"422","title":"t","detail":"d"}]}` (status as number or string), or plain text.
 */
export function errorBodyMessage(body: string): string {
  const trimmed = body.trim();
  if (!trimmed) return '';
  try {
    const parsed = JSON.parse(trimmed) as { errors?: unknown; error?: unknown; message?: unknown };
    if (Array.isArray(parsed.errors)) {
      const shown = parsed.errors.slice(0, 10).map((e) => {
        if (typeof e === 'string') return e;
        if (e && typeof e === 'object') {
          const o = e as Record<string, unknown>;
          return [o.title, o.detail].filter((x) => typeof x === 'string' && x).join(': ') || JSON.stringify(o);
        }
        return String(e);
      });
      const more = parsed.errors.length > shown.length ? `; (+${parsed.errors.length - shown.length} more)` : '';
      return capText(shown.map((e) => capText(e, 200)).join('; ') + more);
    }
    if (typeof parsed.error === 'string') return capText(parsed.error);
    if (typeof parsed.message === 'string') return capText(parsed.message);
  } catch {
    // not JSON: fall through to the text itself
  }
  return trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
}

export function reasonForStatus(status: number): Reason {
  if (status === 429) return 'rate_limited';
  return status >= 500 ? 'http_5xx' : 'http_4xx';
}
