import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { idleCollector } from '../../../src/offload/idle-collect.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

/** A thread serving tasks litters, then idles: its heap in use (MiB) after each (test/fixtures/threads/idle-gc-probe.ts). */
async function probe(nodeFlags: string[]): Promise<{ afterLitter: number; afterIdle: number }> {
  const { stdout } = await run(process.execPath, [...nodeFlags, '--import', 'tsx', 'test/fixtures/threads/idle-gc-probe.ts'], { cwd: ROOT, timeout: 60_000 });
  return JSON.parse(stdout) as { afterLitter: number; afterIdle: number };
}

describe('a thread serving tasks, idle', () => {
  it('with node --expose-gc, frees the garbage its last task left', async () => {
    const heap = await probe(['--expose-gc']);
    expect(heap.afterLitter).toBeGreaterThan(15);
    expect(heap.afterIdle).toBeLessThan(heap.afterLitter / 2);
  }, 90_000);
});

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
