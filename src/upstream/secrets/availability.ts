import { UpstreamError } from '../errors.js';

/**
 * The secrets service's own ways of saying "not serving": 503 with "sealed" in its errors (it must be
 * unsealed), and the statuses its health check gives nodes that do not serve (429 standby, 472 DR
 * secondary, 473 performance standby). Each gets its own reason so the runbook can say what to do.
 */
const STANDBY_STATUSES: ReadonlySet<number> = new Set([429, 472, 473]);

export function secretsReason(err: UpstreamError): 'sealed' | 'standby' | undefined {
  if (err.status === 503 && /\bsealed\b/i.test(err.message)) return 'sealed';
  if (err.status !== undefined && STANDBY_STATUSES.has(err.status)) return 'standby';
  return undefined;
}

/** Runs a secrets-service call and renames its failure by `secretsReason`; other failures pass as they are. */
export async function withSecretsReasons<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (e) {
    if (!(e instanceof UpstreamError)) throw e;
    const reason = secretsReason(e);
    if (!reason) throw e;
    const renamed = new UpstreamError(reason, e.message, e.status);
    if (e.retryAfterMs !== undefined) renamed.retryAfterMs = e.retryAfterMs;
    throw renamed;
  }
}
