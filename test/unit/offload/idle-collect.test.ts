import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idleCollector } from '../../../src/offload/idle-collect.js';

describe('a thread collects its garbage once idle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('once no task has come for the idle time, then not again until the next task', () => {
    const gc = vi.fn();
    const answered = idleCollector(gc, 1_000);
    answered();
    vi.advanceTimersByTime(999);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60_000);
    expect(gc).toHaveBeenCalledTimes(1);
    answered();
    vi.advanceTimersByTime(1_000);
    expect(gc).toHaveBeenCalledTimes(2);
  });

  it('not while tasks keep coming: each one moves the collection on', () => {
    const gc = vi.fn();
    const answered = idleCollector(gc, 1_000);
    for (let i = 0; i < 10; i++) {
      answered();
      vi.advanceTimersByTime(900);
    }
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('without an exposed gc (node without --expose-gc), nothing is scheduled', () => {
    const answered = idleCollector(undefined, 1_000);
    answered();
    expect(vi.getTimerCount()).toBe(0);
  });
});
