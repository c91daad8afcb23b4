import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  IDLE_GC_OPTIONS,
  YOUNG_GC_OPTIONS,
  YOUNG_RELEASE_MS,
  idleCollector,
  idleSteps,
  takesGcOptions,
  type IdleStep,
} from '../../../src/support/idle-collect.js';
import { runProbe } from '../../helpers/process.js';

/** A thread serving tasks litters, then idles: its heap in use (MiB) after each (test/fixtures/threads/idle-gc-probe.ts). */
interface IdleHeap {
  afterLitter: number;
  afterIdle: number;
  youngAfterLitter: number;
  youngAfterIdle: number;
  youngAtRest: number;
}

/** Node 24's V8 knows the "last resort" flavor of `gc`; Node 20's runs its plain full collection for it. */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

async function probe(nodeFlags: string[]): Promise<IdleHeap> {
  const { stdout } = await runProbe('test/fixtures/threads/idle-gc-probe.ts', nodeFlags);
  return JSON.parse(stdout) as IdleHeap;
}

/** One probe for both tests of a real thread (it idles ~10 s). */
let probed: Promise<IdleHeap> | undefined;
const idleHeap = () => (probed ??= probe(['--expose-gc']));

describe('a thread serving tasks, idle', () => {
  it('with node --expose-gc, frees the garbage its last task left', async () => {
    const heap = await idleHeap();
    expect(heap.afterLitter).toBeGreaterThan(15);
    expect(heap.afterIdle).toBeLessThan(heap.afterLitter / 2);
  }, 90_000);

  it('with node --expose-gc, gives its young generation back: at once on Node 24, five seconds later on Node 20', async () => {
    const heap = await idleHeap();
    // The litter's survivors grew the young generation to the thread's 8 MiB (two semi-spaces).
    expect(heap.youngAfterLitter).toBeGreaterThanOrEqual(4);
    if (NODE_MAJOR >= 24) expect(heap.youngAfterIdle).toBeLessThan(heap.youngAfterLitter / 2);
    expect(heap.youngAtRest).toBeLessThan(heap.youngAfterLitter / 2);
  }, 90_000);
});

describe('a thread collects its garbage once idle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const oneStep = (run: () => void): IdleStep[] => [{ afterMs: 1_000, run }];

  it('once no work has come for the idle time, then not again until the next work', () => {
    const gc = vi.fn();
    const worked = idleCollector(oneStep(gc));
    worked();
    vi.advanceTimersByTime(999);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60_000);
    expect(gc).toHaveBeenCalledTimes(1);
    worked();
    vi.advanceTimersByTime(1_000);
    expect(gc).toHaveBeenCalledTimes(2);
  });

  it('not while work keeps coming: each sign of it moves the collection on', () => {
    const gc = vi.fn();
    const worked = idleCollector(oneStep(gc));
    for (let i = 0; i < 10; i++) {
      worked();
      vi.advanceTimersByTime(900);
    }
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(gc).toHaveBeenCalledTimes(1);
  });

  it('takes its steps in turn, each this long after the last work, and starts over at new work', () => {
    const done: string[] = [];
    const at = (name: string, afterMs: number): IdleStep => ({ afterMs, run: () => done.push(`${name}@${Date.now()}`) });
    vi.setSystemTime(0);
    const worked = idleCollector([at('full', 1_000), at('young', 7_000)]);
    worked();
    vi.advanceTimersByTime(6_999);
    expect(done).toEqual(['full@1000']);
    vi.advanceTimersByTime(1);
    expect(done).toEqual(['full@1000', 'young@7000']);
    vi.advanceTimersByTime(60_000);
    expect(done).toHaveLength(2);
    // Work between the steps: the second waits its whole time after the last work, the first runs again.
    worked();
    vi.advanceTimersByTime(2_000);
    worked();
    vi.advanceTimersByTime(7_000);
    expect(done).toEqual(['full@1000', 'young@7000', 'full@68000', 'full@70000', 'young@76000']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('with no steps (node without --expose-gc), nothing is scheduled', () => {
    const worked = idleCollector([]);
    worked();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('the collection an idle thread asks for', () => {
  const global = globalThis as { gc?: unknown };
  const had = global.gc;
  afterEach(() => {
    global.gc = had;
  });

  const V8_13 = '13.6.233.17-node.53';
  const V8_11 = '11.3.244.8-node.38';
  /** What each step of `idleSteps` asks `gc` for, with its time. */
  const asked = (thread: 'tasks' | 'collection', v8: string) => {
    const gc = vi.fn();
    global.gc = gc;
    return idleSteps(thread, v8).map((step) => {
      step.run();
      return { afterMs: step.afterMs, args: gc.mock.lastCall };
    });
  };

  it('is the last-resort flavor on V8 13 (Node 24), the plain full collection on V8 11 (Node 20)', () => {
    expect(takesGcOptions(V8_13)).toBe(true);
    expect(takesGcOptions(V8_11)).toBe(false);
    expect(asked('tasks', V8_13)).toEqual([{ afterMs: 1_000, args: [IDLE_GC_OPTIONS] }]);
    expect(asked('tasks', V8_11)[0]).toEqual({ afterMs: 1_000, args: [] });
  });

  it('on V8 11, then a scavenge over five seconds later, which gives the young generation back', () => {
    expect(YOUNG_RELEASE_MS - 1_000).toBeGreaterThan(5_000);
    expect(asked('tasks', V8_11)[1]).toEqual({ afterMs: YOUNG_RELEASE_MS, args: [YOUNG_GC_OPTIONS] });
  });

  it('on the collection thread, the scavenge alone on V8 11 and the last-resort collection on V8 13', () => {
    expect(asked('collection', V8_11)).toEqual([{ afterMs: YOUNG_RELEASE_MS, args: [YOUNG_GC_OPTIONS] }]);
    expect(asked('collection', V8_13)).toEqual([{ afterMs: 1_000, args: [IDLE_GC_OPTIONS] }]);
  });

  it('is none without --expose-gc', () => {
    global.gc = undefined;
    expect(idleSteps('tasks')).toEqual([]);
    expect(idleSteps('collection')).toEqual([]);
  });
});
