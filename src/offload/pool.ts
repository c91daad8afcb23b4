import { availableParallelism } from 'node:os';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { UpstreamError, type Reason } from '../upstream/errors.js';
import { startThread } from '../support/threads.js';

/**
 * A small pool of worker threads for the CPU-heavy steps of big upstream answers (decoding,
 * validating and mapping a gossip pool of tens of thousands of members): in the collection thread
 * they would hold its event loop for tens of milliseconds in one piece, and every other job's turn
 * with it. The pool knows no task: its threads start from an entry module that serves a table of
 * pure functions (`serveTasks`), and callers name the task.
 *
 * node:worker_threads directly rather than a pool library: vigil runs a few kinds of task, a few
 * times per collection, on a fixed number of threads; what a library adds (queues with priorities,
 * idle timeouts, histograms) is unused here and would be one more dependency to pin and vet.
 */

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Reply {
  id: number;
  ok?: unknown;
  error?: { reason: Reason; message: string; status?: number };
}

/** Pure functions from a structured-cloneable input to a structured-cloneable output, by name. */
export type TaskTable = Readonly<Record<string, (input: never) => unknown>>;

/** The module a pool's threads start from (`serveTasks` with its table): a sibling `name` of `base`, an `import.meta.url`. */
export interface WorkerEntry {
  base: string;
  name: string;
  /** The threads' heap limits, where they differ from `startThread`'s. */
  resourceLimits?: ResourceLimits;
  /**
   * The heap a thread needs for answers of this many bytes at most (its young and old generations'
   * limits, MiB): a thread is started for the largest answer the pool has been given, and replaced
   * (once its tasks are done) when a larger one needs more of either. Unset: `resourceLimits` as
   * they are.
   */
  limitsFor?: (bytes: number) => SizedLimits;
}

/** A thread's generations, sized by the pool for the answers it reads. */
export interface SizedLimits {
  maxYoungGenerationSizeMb: number;
  maxOldGenerationSizeMb: number;
}

/** Whether limits `have` fall short of `want` in either generation. */
const fallsShort = (have: SizedLimits | undefined, want: SizedLimits): boolean =>
  !have || have.maxYoungGenerationSizeMb < want.maxYoungGenerationSizeMb || have.maxOldGenerationSizeMb < want.maxOldGenerationSizeMb;

/** What a job sees of a pool: a task run by name, off the thread that asks (`bytes`: the size of the answer it reads). */
export interface Offload {
  run(name: string, input: unknown, transfer?: ArrayBuffer[], bytes?: number): Promise<unknown>;
}

class Thread {
  readonly pending = new Map<number, Pending>();
  private readonly worker: Worker;
  /** Terminated once its last task answers: a thread with a larger young generation took its place. */
  private retired = false;

  constructor(
    entry: WorkerEntry,
    /** Its generations' limits, when the pool sizes them. */
    readonly sized: SizedLimits | undefined,
    onExit: (t: Thread) => void,
  ) {
    const limits = { ...entry.resourceLimits, ...sized };
    this.worker = startThread(entry.base, entry.name, Object.keys(limits).length ? { resourceLimits: limits } : {});
    // An idle pool must not keep the process alive.
    this.worker.unref();
    this.worker.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      this.sync();
      if (this.retired && this.pending.size === 0) void this.terminate();
      if (m.error) p.reject(new UpstreamError(m.error.reason, m.error.message, m.error.status));
      else p.resolve(m.ok);
    });
    const fail = (e: Error) => {
      for (const p of this.pending.values()) p.reject(new UpstreamError('internal', `worker thread failed: ${e.message}`));
      this.pending.clear();
      onExit(this);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
  }

  post(id: number, name: string, input: unknown, transfer: ArrayBuffer[], p: Pending): void {
    this.pending.set(id, p);
    this.sync();
    this.worker.postMessage({ id, name, input }, transfer);
  }

  /** Keeps the process alive only while a task is in flight. */
  private sync(): void {
    if (this.pending.size) this.worker.ref();
    else this.worker.unref();
  }

  /** Ends the thread once its tasks in flight have answered. */
  retire(): void {
    this.retired = true;
    if (this.pending.size === 0) void this.terminate();
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

export class OffloadPool<T extends TaskTable = TaskTable> implements Offload {
  private readonly threads: Thread[] = [];
  private readonly retiring = new Set<Thread>();
  private nextId = 0;
  /** The largest answer given so far, in bytes: what a thread's young generation is sized for. */
  private largest = 0;

  constructor(
    private readonly entry: WorkerEntry,
    private readonly size = defaultPoolSize(),
  ) {}

  /**
   * Runs a task on the least busy thread (threads start on first use). `transfer` moves buffers to
   * the worker instead of copying them; they are unusable here afterwards.
   */
  run<N extends keyof T & string>(name: N, input: Parameters<T[N]>[0], transfer: ArrayBuffer[] = [], bytes = 0): Promise<ReturnType<T[N]>> {
    if (bytes > this.largest) this.grow(bytes);
    const thread = this.pick();
    return new Promise((resolve, reject) => {
      thread.post(this.nextId++, name, input, transfer, { resolve: resolve as (v: unknown) => void, reject });
    });
  }

  /** The limits of each thread running, where the pool sizes them. */
  sizedLimits(): SizedLimits[] {
    return this.threads.flatMap((t) => (t.sized ? [t.sized] : []));
  }

  async close(): Promise<void> {
    const threads = [...this.threads.splice(0), ...this.retiring];
    this.retiring.clear();
    await Promise.all(threads.map((t) => t.terminate()));
  }

  /** A larger answer than any before: threads sized for less are retired, and new ones started for it. */
  private grow(bytes: number): void {
    this.largest = bytes;
    const wanted = this.entry.limitsFor?.(bytes);
    if (wanted === undefined) return;
    for (const t of this.threads.filter((x) => fallsShort(x.sized, wanted))) {
      this.threads.splice(this.threads.indexOf(t), 1);
      this.retiring.add(t);
      t.retire();
    }
  }

  private pick(): Thread {
    if (this.threads.length < this.size) {
      const t = new Thread(this.entry, this.entry.limitsFor?.(this.largest), (dead) => {
        this.retiring.delete(dead);
        const i = this.threads.indexOf(dead);
        if (i !== -1) this.threads.splice(i, 1);
      });
      this.threads.push(t);
      if (this.threads.length === 1 || this.threads.every((x) => x.pending.size > 0)) return t;
    }
    return this.threads.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
  }
}

/** One thread per core beyond the main thread's, at least one, at most four. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}
