/** How long a thread waits, its last task answered, before it collects its garbage. */
export const IDLE_COLLECT_MS = 1_000;

/**
 * How long after a thread's last work V8 11 (Node 20) is asked to give its young generation back.
 * V8 shrinks the young generation at a collection only when the allocation rate it measures over
 * its last five seconds of collections is near nothing, so this comes over five seconds after the
 * idle collection (or the thread's last collection while busy).
 */
export const YOUNG_RELEASE_MS = 7_000;

/** The collection `gc` is asked for on V8 13: the last-resort one, which also gives the young generation back. */
export const IDLE_GC_OPTIONS = { type: 'major', execution: 'sync', flavor: 'last-resort' } as const;

/** A scavenge: on V8 11, at a near-nothing allocation rate, it shrinks the young generation to its least. */
export const YOUNG_GC_OPTIONS = { type: 'minor' } as const;

type ExposedGc = (options?: typeof IDLE_GC_OPTIONS | typeof YOUNG_GC_OPTIONS) => void;

/** One thing an idle thread does, this long after its last work. */
export interface IdleStep {
  readonly afterMs: number;
  readonly run: () => void;
}

/**
 * Whether this V8 takes `IDLE_GC_OPTIONS`: Node 24's (V8 13) does. Node 20's (V8 11) does not know
 * the flavor, and given a full collection's options its `gc` scans the stack conservatively and
 * frees less than the plain `gc()` (14.3 to 13.0 MiB where the plain call reaches 2.9), so it gets
 * the plain call.
 */
export const takesGcOptions = (v8Version = process.versions.v8): boolean => Number(v8Version.split('.')[0]) >= 13;

/**
 * What an idle thread does when node runs with `--expose-gc` (the image does); nothing without it.
 *
 * - A decoding thread (`tasks`) keeps its last answers' garbage (whole answers' objects) until V8's
 *   next full collection, which an idle thread may not reach for many collections of vigil's; its
 *   live heap is its modules and schemas, so a full collection is short. On V8 13, the "last
 *   resort" flavor: V8's collection under memory pressure, which also shrinks the young generation
 *   to its least and returns its pages. On V8 11 the plain `gc()`, which keeps every semi-space
 *   committed (a thread sized for a pool of 20,000 members kept 64 MiB), then a scavenge once the
 *   thread has allocated nothing for five seconds, which gives them back.
 * - The collection thread (`collection`) holds the estate's state (up to ~200 MiB at a million
 *   series). On V8 13 it gets the last-resort collection too: at a million series its RSS between
 *   collections fell by 400 MiB at the same CPU. On V8 11 a plain full collection gave back nothing
 *   the next collection did not take again, so it gets the scavenge alone (its young generation is
 *   up to 32 MiB: src/engine/young-generation.ts).
 *
 * A thread grows its young generation again with the next answers' survivors, in a step or two
 * (`YOUNG_GROWTH_FACTOR`; docs/performance.md, "Young generations given back between collections").
 */
export function idleSteps(thread: 'tasks' | 'collection', v8Version = process.versions.v8): IdleStep[] {
  const gc = (globalThis as { gc?: ExposedGc }).gc;
  if (!gc) return [];
  if (takesGcOptions(v8Version)) return [{ afterMs: IDLE_COLLECT_MS, run: () => gc(IDLE_GC_OPTIONS) }];
  const release: IdleStep = { afterMs: YOUNG_RELEASE_MS, run: () => gc(YOUNG_GC_OPTIONS) };
  return thread === 'tasks' ? [{ afterMs: IDLE_COLLECT_MS, run: () => gc() }, release] : [release];
}

/**
 * What a thread calls at each sign of work (a task answered, a change published): once nothing
 * has come for each step's `afterMs`, that step, each once, then none until the next sign of work.
 */
export function idleCollector(steps: readonly IdleStep[]): () => void {
  const first = steps[0];
  if (!first) return () => {};
  let timer: NodeJS.Timeout | undefined;
  let next = 0;
  const fire = () => {
    const done = steps[next++];
    done?.run();
    const step = steps[next];
    timer = step ? setTimeout(fire, step.afterMs - (done?.afterMs ?? 0)).unref() : undefined;
  };
  return () => {
    // Work comes often (thousands of tasks a collection): the first step's timer is moved on, not replaced.
    if (timer && next === 0) return void timer.refresh();
    clearTimeout(timer);
    next = 0;
    timer = setTimeout(fire, first.afterMs).unref();
  };
}
