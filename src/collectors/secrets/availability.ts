import { UpstreamError } from '../../upstream/errors.js';

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

/** A secrets-service call's failure renamed by `secretsReason`; other failures as they are. */
export function secretsFailure(e: UpstreamError): UpstreamError {
  const reason = secretsReason(e);
  if (!reason) return e;
  const renamed = new UpstreamError(reason, e.message, e.status);
  if (e.retryAfterMs !== undefined) renamed.retryAfterMs = e.retryAfterMs;
  return renamed;
}
