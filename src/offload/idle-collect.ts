/** How long a thread waits, its last task answered, before it collects its garbage. */
export const IDLE_COLLECT_MS = 1_000;

/** The collection `gc` is asked for: V8's last-resort one, which also gives the young generation back. */
export const IDLE_GC_OPTIONS = { type: 'major', execution: 'sync', flavor: 'last-resort' } as const;

type ExposedGc = (options?: typeof IDLE_GC_OPTIONS) => void;

/**
 * Whether this V8 takes `IDLE_GC_OPTIONS`: Node 24's (V8 13) does. Node 20's (V8 11) does not know
 * the flavor, and given any options its `gc` scans the stack conservatively and frees less than the
 * plain `gc()` (14.3 to 13.0 MiB where the plain call reaches 2.9), so it gets the plain call.
 */
export const takesGcOptions = (v8Version = process.versions.v8): boolean => Number(v8Version.split('.')[0]) >= 13;

/**
 * V8's full collection as an idle thread wants it, when node runs with `--expose-gc` (the image
 * does). On Node 24, the "last resort" flavor: V8's collection under memory pressure, which also
 * shrinks the young generation to its least and returns its pages. The plain `gc()` frees the old
 * generation's garbage but keeps every semi-space committed: a decoding thread sized for a pool of
 * 20,000 members kept 64 MiB of young generation while idle. The young generation grows again with
 * the next answers' survivors (docs/performance.md, "An idle thread gives its young generation back").
 */
export const exposedGc = (v8Version?: string): (() => void) | undefined => {
  const gc = (globalThis as { gc?: ExposedGc }).gc;
  if (!gc) return undefined;
  return takesGcOptions(v8Version) ? () => gc(IDLE_GC_OPTIONS) : () => gc();
};

/**
 * What a thread calls as each task is answered: once no task has come for `IDLE_COLLECT_MS`, one
 * full garbage collection, then none until the next task. A decoding thread keeps the garbage of
 * its last tasks (whole answers' objects) until V8's next full collection, which an idle thread may
 * not reach for many collections of vigil's: at 1x, 47 MiB used where 15 MiB is live. Its live heap
 * is its modules and schemas, so the collection is short, and it runs while the thread has
 * nothing else to do (docs/performance.md, "The main thread's young generation, the decoding
 * threads' garbage"). Without `gc` (node without `--expose-gc`), nothing.
 */
export function idleCollector(gc: (() => void) | undefined, idleMs = IDLE_COLLECT_MS): () => void {
  if (!gc) return () => {};
  let timer: NodeJS.Timeout | undefined;
  return () => {
    if (timer) timer.refresh();
    else timer = setTimeout(gc, idleMs).unref();
  };
}
