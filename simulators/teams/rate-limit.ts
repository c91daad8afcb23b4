/** What a request may do, and the headers that tell the client about its budget. */
export interface RateVerdict {
  allowed: boolean;
  headers: Record<string, string>;
}

interface Window {
  start: number;
  used: number;
}

const WINDOW_MS = 1000;

/**
 * Per-token fixed one-second windows. A window opens at a token's first request after the previous
 * one ended, so a burst of `perSecond + 1` quick requests is refused deterministically in tests.
 */
export class RateLimiter {
  /** 429s sent, for `/_sim/state`. */
  rejected = 0;
  private readonly windows = new Map<string, Window>();

  constructor(
    public perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  take(token: string): RateVerdict {
    const window = this.current(token);
    const allowed = window.used < this.perSecond;
    if (allowed) window.used += 1;
    else this.rejected += 1;
    const resetSeconds = Math.max(0, window.start + WINDOW_MS - this.now()) / 1000;
    const headers: Record<string, string> = {
      'x-ratelimit-limit': String(this.perSecond),
      'x-ratelimit-remaining': String(Math.max(0, this.perSecond - window.used)),
      'x-ratelimit-reset': resetSeconds.toFixed(3),
    };
    if (!allowed) headers['retry-after'] = String(Math.max(1, Math.ceil(resetSeconds)));
    return { allowed, headers };
  }

  /** Uses up the token's budget for a window that starts now, so its requests of the next second are refused. */
  exhaust(token: string): void {
    this.windows.set(token, { start: this.now(), used: Number.POSITIVE_INFINITY });
  }

  private current(token: string): Window {
    const now = this.now();
    let window = this.windows.get(token);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, used: 0 };
      this.windows.set(token, window);
    }
    return window;
  }
}
