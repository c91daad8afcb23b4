import { describe, expect, it } from 'vitest';
import { Watchdog } from '../../src/sink/watchdog.js';

const MIN = 60_000;

describe('the Watchdog dead-man switch', () => {
  it('counts silence from the sink start before the first Watchdog ever arrives', () => {
    const w = new Watchdog('Watchdog', 10 * MIN, 1_000_000);
    expect(w.evaluate(1_000_000 + 10 * MIN)).toEqual({ healthy: true, changed: false, silenceMs: 10 * MIN });
    expect(w.evaluate(1_000_000 + 10 * MIN + 1)).toMatchObject({ healthy: false, changed: true });
    expect(w.evaluate(1_000_000 + 11 * MIN)).toMatchObject({ healthy: false, changed: false });
  });

  it('counts from the last arrival, which may predate the start (read from the store)', () => {
    const w = new Watchdog('Watchdog', 10 * MIN, 50 * MIN, 45 * MIN);
    expect(w.evaluate(50 * MIN).healthy).toBe(true);
    expect(w.evaluate(56 * MIN)).toMatchObject({ healthy: false, changed: true, silenceMs: 11 * MIN });
  });

  it('recovers when a Watchdog arrives, and never goes back in time', () => {
    const w = new Watchdog('Watchdog', 10 * MIN, 0);
    expect(w.evaluate(20 * MIN).healthy).toBe(false);
    w.seen(19 * MIN);
    w.seen(5 * MIN);
    expect(w.lastSeenAt()).toBe(19 * MIN);
    expect(w.evaluate(20 * MIN)).toEqual({ healthy: true, changed: true, silenceMs: MIN });
  });

  it('reports status without recording it (a health request must not swallow the change)', () => {
    const w = new Watchdog('Watchdog', MIN, 0);
    expect(w.status(2 * MIN).healthy).toBe(false);
    expect(w.isHealthy()).toBe(true);
    expect(w.evaluate(2 * MIN).changed).toBe(true);
  });
});
