import { setTimeout as sleep } from 'node:timers/promises';
import { timerMs } from '../config-fields/units.js';
import { retryAfterMs } from './retry.js';

type Headers = Record<string, string | string[] | undefined>;

export interface SpacerOptions {
  /** The most requests per second this spacer lets through. */
  perSecond: number;
  /** Share of an advertised limit to use, so timer jitter never lands two requests in one over-full window. */
  headroom?: number;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The longest an upstream's Retry-After can hold requests back. */
export const MAX_RATE_LIMIT_WAIT_MS = 60_000;
const MIN_PER_SECOND = 1 / 60;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * Spaces requests evenly below a rate limit, for every client that shares one budget (one token at
 * one upstream). Each caller reserves the next free slot, so concurrent callers queue rather than
 * burst. It slows down when the upstream advertises a lower limit (`x-ratelimit-limit`) and holds
 * every caller back for the advertised time after a 429.
 */
export class RequestSpacer {
  private configured: number;
  private advertised = Infinity;
  /** When the latest caller was let through; the next one goes one interval (at the rate of then) later. */
  private lastSlot = -Infinity;
  private pausedUntil = -Infinity;
  private readonly headroom: number;
  private readonly now: () => number;
  private readonly wait: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(opts: SpacerOptions) {
    this.configured = opts.perSecond;
    this.headroom = opts.headroom ?? 0.9;
    this.now = opts.now ?? (() => performance.now());
    this.wait = opts.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
  }

  /** Requests per second currently let through (never below one a minute, whatever is advertised). */
  get perSecond(): number {
    return Math.max(MIN_PER_SECOND, Math.min(this.configured, this.advertised * this.headroom));
  }

  /** Lowers the configured rate (targets sharing a budget get the strictest of their settings). */
  limitTo(perSecond: number): void {
    this.configured = Math.min(this.configured, perSecond);
  }

  /** Resolves when this caller may send; rejects when `signal` aborts first. */
  async take(signal: AbortSignal): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.lastSlot + 1000 / this.perSecond, this.pausedUntil);
    this.lastSlot = slot;
    if (slot > now) await this.wait(timerMs(slot - now), signal);
  }

  /** Reads the rate-limit headers of any answer. */
  observe(status: number, headers: Headers): void {
    const limit = Number(first(headers['x-ratelimit-limit']));
    if (Number.isFinite(limit) && limit > 0) this.advertised = limit;
    if (status === 429) {
      // Clamped: a hostile or broken upstream must not stop every caller for days. The request that
      // got the 429 fails (rate_limited, counted) when it was asked to wait longer (see waitOnRateLimit).
      const pause = Math.min(retryAfterMs(headers) ?? 1000, MAX_RATE_LIMIT_WAIT_MS);
      this.pausedUntil = Math.max(this.pausedUntil, this.now() + pause);
    }
  }
}
