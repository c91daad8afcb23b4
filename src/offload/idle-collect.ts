/** How long a thread waits, its last task answered, before it collects its garbage. */
export const IDLE_COLLECT_MS = 1_000;

/** V8's full collection, on the global object when node runs with `--expose-gc` (the image does). */
export const exposedGc = (): (() => void) | undefined => (globalThis as { gc?: () => void }).gc;

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
