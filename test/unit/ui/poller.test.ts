import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_BACKOFF_MS, Poller } from '../../../ui/poller.js';

/** How the live pages pace their requests: never overlapping, paused while hidden, backing off on errors. */

let hidden = false;
const env = {
  hidden: () => hidden,
  setTimeout: (f: () => void, ms: number) => setTimeout(f, ms),
  clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
};

beforeEach(() => {
  vi.useFakeTimers();
  hidden = false;
});
afterEach(() => vi.useRealTimers());

describe('Poller', () => {
  it('asks again every interval after each answer', async () => {
    const refresh = vi.fn(() => Promise.resolve());
    const p = new Poller(refresh, env, 1000);
    await p.tick();
    expect(refresh).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(refresh).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(refresh).toHaveBeenCalledTimes(2);
  });

  it('never has two requests in flight, however slow the answer', async () => {
    let running = 0;
    let most = 0;
    const refresh = vi.fn(async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5000));
      running--;
    });
    const p = new Poller(refresh, env, 1000);
    void p.tick();
    void p.tick(); // shown again while the first request waits
    p.visibilityChanged();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(most).toBe(1);
    expect(refresh.mock.calls.length).toBeLessThanOrEqual(4); // 5 s answer + 1 s wait per round
  });

  it('stops while the tab is hidden and asks at once when it is shown', async () => {
    const refresh = vi.fn(() => Promise.resolve());
    const p = new Poller(refresh, env, 1000);
    await p.tick();
    hidden = true;
    p.visibilityChanged();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refresh).toHaveBeenCalledTimes(1);
    hidden = false;
    p.visibilityChanged();
    await vi.advanceTimersByTimeAsync(0);
    expect(refresh).toHaveBeenCalledTimes(2);
  });

  it('schedules nothing after an answer that arrives while the tab is hidden', async () => {
    const refresh = vi.fn(async () => {
      hidden = true; // hidden while the request was on its way
      await Promise.resolve();
    });
    const p = new Poller(refresh, env, 1000);
    await p.tick();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('doubles the wait after each failure up to a cap, and returns to the interval after a success', async () => {
    expect([0, 1, 2, 3, 10].map((n) => Poller.delay(n, 1000))).toEqual([1000, 2000, 4000, 8000, MAX_BACKOFF_MS]);
    let fail = true;
    const refresh = vi.fn(() => (fail ? Promise.reject(new Error('down')) : Promise.resolve()));
    const p = new Poller(refresh, env, 1000);
    await p.tick(); // fails: next in 2 s
    await vi.advanceTimersByTimeAsync(1999);
    expect(refresh).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1); // fails again: next in 4 s
    expect(refresh).toHaveBeenCalledTimes(2);
    fail = false;
    await vi.advanceTimersByTimeAsync(4000); // succeeds: next in 1 s
    expect(refresh).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(1000);
    expect(refresh).toHaveBeenCalledTimes(4);
  });
});
