import { describe, expect, it } from 'vitest';
import { RequestRateLimit } from '../../../src/server/rate-limit.js';

/** The web config's rate_limit: a token bucket over every request, on a clock the test moves. */
describe('the request rate limit', () => {
  it('lets a burst through, then one request per interval', () => {
    let t = 0;
    const limit = new RequestRateLimit({ intervalMs: 1000, burst: 2 }, () => t);
    expect([limit.take(), limit.take(), limit.take()]).toEqual([true, true, false]);
    t = 500;
    expect(limit.take()).toBe(false);
    t = 1000;
    expect([limit.take(), limit.take()]).toEqual([true, false]);
    t = 60_000;
    // Idle time refills up to the burst, never past it.
    expect([limit.take(), limit.take(), limit.take()]).toEqual([true, true, false]);
  });

  it('is off without settings or with an interval of 0', () => {
    for (const l of [new RequestRateLimit(undefined), new RequestRateLimit({ intervalMs: 0, burst: 0 })]) {
      expect(Array.from({ length: 100 }, () => l.take()).every(Boolean)).toBe(true);
    }
  });
});
