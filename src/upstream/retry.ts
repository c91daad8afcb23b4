import type { UpstreamError } from './errors.js';

/** Decides whether a failed attempt is tried again, and after how long (undefined: give up). */
export interface RetryPolicy {
  delayFor(attempt: number, err: UpstreamError): number | undefined;
}

/**
 * Bounded exponential backoff with jitter for the given statuses. The secrets service answers 412
 * while eventually consistent data is missing and asks clients to retry with backoff.
 */
export function backoffOn(statuses: readonly number[], opts: { maxRetries: number; baseMs: number; capMs: number }): RetryPolicy {
  return {
    delayFor(attempt, err) {
      if (err.status === undefined || !statuses.includes(err.status) || attempt >= opts.maxRetries) return undefined;
      const exp = Math.min(opts.capMs, opts.baseMs * 2 ** attempt);
      return Math.round(exp / 2 + Math.random() * (exp / 2));
    },
  };
}

/**
 * Waits what a rate-limited upstream advertised (Retry-After / reset header), bounded in count and
 * in how long one wait may be. Asked to wait longer than `maxWaitMs`, it does not wait at all: the
 * request fails as rate_limited (counted, and shown with the wait it was asked for), rather than
 * stalling the collection for however long a broken upstream says.
 */
export function waitOnRateLimit(opts: { maxRetries: number; defaultMs: number; maxWaitMs: number }): RetryPolicy {
  return {
    delayFor(attempt, err) {
      if (err.reason !== 'rate_limited' || attempt >= opts.maxRetries) return undefined;
      const asked = err.retryAfterMs ?? opts.defaultMs;
      if (asked > opts.maxWaitMs) {
        err.message += ` (asked to wait ${formatSeconds(asked)}, longer than the ${formatSeconds(opts.maxWaitMs)} vigil waits: not retried)`;
        return undefined;
      }
      return asked;
    },
  };
}

const formatSeconds = (ms: number) => `${Number.isFinite(ms) ? Math.round(ms / 1000) : 'unbounded'} s`;

/** The first policy that retries an error decides its delay; attempts are counted across all of them. */
export function firstOf(...policies: readonly RetryPolicy[]): RetryPolicy {
  return {
    delayFor(attempt, err) {
      for (const p of policies) {
        const delay = p.delayFor(attempt, err);
        if (delay !== undefined) return delay;
      }
      return undefined;
    },
  };
}

/** Milliseconds an upstream asked us to wait: Retry-After (seconds or a date) or x-ratelimit-reset (seconds). */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const first = (h: string) => {
    const v = headers[h];
    return Array.isArray(v) ? v[0] : v;
  };
  const reset = Number(first('x-ratelimit-reset'));
  if (Number.isFinite(reset) && reset >= 0 && reset < 3600) return Math.ceil(reset * 1000);
  const ra = first('retry-after');
  if (ra === undefined) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(ra);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}
