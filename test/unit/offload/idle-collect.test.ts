import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IDLE_GC_OPTIONS, exposedGc, idleCollector, takesGcOptions } from '../../../src/offload/idle-collect.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

/** A thread serving tasks litters, then idles: its heap in use (MiB) after each (test/fixtures/threads/idle-gc-probe.ts). */
interface IdleHeap {
  afterLitter: number;
  afterIdle: number;
  youngAfterLitter: number;
  youngAfterIdle: number;
}

/** Node 24's V8 knows the "last resort" flavor of `gc`; Node 20's runs its plain full collection for it. */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

async function probe(nodeFlags: string[]): Promise<IdleHeap> {
  const { stdout } = await run(process.execPath, [...nodeFlags, '--import', 'tsx', 'test/fixtures/threads/idle-gc-probe.ts'], { cwd: ROOT, timeout: 60_000 });
  return JSON.parse(stdout) as IdleHeap;
}

describe('a thread serving tasks, idle', () => {
  it('with node --expose-gc, frees the garbage its last task left', async () => {
    const heap = await probe(['--expose-gc']);
    expect(heap.afterLitter).toBeGreaterThan(15);
    expect(heap.afterIdle).toBeLessThan(heap.afterLitter / 2);
  }, 90_000);

  it.runIf(NODE_MAJOR >= 24)(
    'with node --expose-gc, gives its young generation back (Node 24)',
    async () => {
      const heap = await probe(['--expose-gc']);
      // The litter's survivors grew the young generation to the thread's 8 MiB (two semi-spaces).
      expect(heap.youngAfterLitter).toBeGreaterThanOrEqual(4);
      expect(heap.youngAfterIdle).toBeLessThan(heap.youngAfterLitter / 2);
    },
    90_000,
  );
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

describe('the collection an idle thread asks for', () => {
  const global = globalThis as { gc?: unknown };
  const had = global.gc;
  afterEach(() => {
    global.gc = had;
  });

  it('is the last-resort flavor on V8 13 (Node 24), the plain full collection on V8 11 (Node 20)', () => {
    expect(takesGcOptions('13.6.233.17-node.53')).toBe(true);
    expect(takesGcOptions('11.3.244.8-node.38')).toBe(false);
    const gc = vi.fn();
    global.gc = gc;
    exposedGc('13.6.233.17-node.53')?.();
    expect(gc).toHaveBeenLastCalledWith(IDLE_GC_OPTIONS);
    exposedGc('11.3.244.8-node.38')?.();
    expect(gc).toHaveBeenLastCalledWith();
  });

  it('is none without --expose-gc', () => {
    global.gc = undefined;
    expect(exposedGc()).toBeUndefined();
  });
});
