/**
 * The web config's `rate_limit` (exporter-toolkit): one token bucket for every request the server
 * gets, taken before authentication as exporter-toolkit does (anonymous requests spend tokens too),
 * refilled with one token per `interval` up to `burst`; a request that finds it empty is answered
 * 429 (a webhook 503, see `HttpGuard`). An interval of 0 turns it off, as in exporter-toolkit.
 */
export interface RateLimitSettings {
  intervalMs: number;
  burst: number;
}

export class RequestRateLimit {
  private tokens: number;
  private last: number;

  constructor(
    private readonly settings: RateLimitSettings | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = settings?.burst ?? 0;
    this.last = this.now();
  }

  /** Takes a token if there is one; false means refuse the request. */
  take(): boolean {
    const s = this.settings;
    if (!s || s.intervalMs === 0) return true;
    const t = this.now();
    this.tokens = Math.min(s.burst, this.tokens + (t - this.last) / s.intervalMs);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
