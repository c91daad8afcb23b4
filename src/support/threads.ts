import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on the entry module `name` next to `base` (an `import.meta.url`):
 * compiled JS in `dist/`; under the tests the TypeScript source, loaded through tsx (a
 * development dependency) registered in the thread first.
 */
export function startThread(base: string, name: string, workerOpts: WorkerOptions = {}): Worker {
  leaveHeapFlagsToThreads();
  const opts = { ...workerOpts, resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB, ...workerOpts.resourceLimits } };
  if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), opts);
  const entry = new URL(`./${name}.ts`, base).href;
  return new Worker(`import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`, { ...opts, eval: true });
}

/**
 * Two of node's flags in the image and `npm start` are for the main thread's heap alone, but V8
 * applies them to every thread started later too. Each is read once, when a thread's heap is set
 * up, so once the main thread's heap exists they have done their work and are undone before the
 * first thread starts. Process-wide and idempotent.
 *
 * - `--max-semi-space-size=4` sizes the main thread's young generation. Cleared (0 is V8's
 *   "unset"), each thread gets the young generation vigil sizes for it (`maxYoungGenerationSizeMb`).
 * - `--no-memory-reducer` leaves the main thread without V8's memory reducer, which, once a thread
 *   has gone quiet after a full collection, runs one or two more that compact its whole old
 *   generation. On the main thread (20 MiB of heap at a million series, collected by itself under
 *   `--single-threaded-gc`) one such compaction held the event loop 63-64 ms, three times its
 *   longest other pause: the main thread goes quiet during every long collection, and a scrape
 *   waits behind the compaction. The other threads keep the reducer: their pauses hold no scrape,
 *   and it gives their memory back between collections.
 */
function leaveHeapFlagsToThreads(): void {
  setFlagsFromString('--max-semi-space-size=0');
  setFlagsFromString('--memory-reducer');
}

/**
 * The young generation of vigil's other threads, in MiB (V8's default is up to 48). A pause of
 * theirs holds no scrape, so they collect more often in less memory: measured at 3x, 8 MiB kept
 * RSS 32 MiB lower after the first collection (64 MiB after load) at the same collection CPU.
 */
export const THREAD_YOUNG_GENERATION_MB = 8;

/** How much lower than the main thread vigil's other threads run (nice, Linux). */
export const THREAD_NICE = 10;

/**
 * On a machine with fewer free cores than busy threads, the main thread (which answers scrapes)
 * must not wait for a core behind another thread's long task: that thread runs at a lower priority.
 * Linux only (a thread's own id, from /proc/thread-self, names just this thread); elsewhere, as is.
 */
export function yieldToMainThread(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) setPriority(tid, THREAD_NICE);
  } catch {
    // not Linux, or not allowed: the thread keeps the process's priority
  }
}
