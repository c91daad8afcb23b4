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
}

/** What a job sees of a pool: a task run by name, off the thread that asks. */
export interface Offload {
  run(name: string, input: unknown, transfer?: ArrayBuffer[]): Promise<unknown>;
}

class Thread {
  readonly pending = new Map<number, Pending>();
  private readonly worker: Worker;

  constructor(entry: WorkerEntry, onExit: (t: Thread) => void) {
    this.worker = startThread(entry.base, entry.name, entry.resourceLimits ? { resourceLimits: entry.resourceLimits } : {});
    // An idle pool must not keep the process alive.
    this.worker.unref();
    this.worker.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      this.sync();
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

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

export class OffloadPool<T extends TaskTable = TaskTable> implements Offload {
  private readonly threads: Thread[] = [];
  private nextId = 0;

  constructor(
    private readonly entry: WorkerEntry,
    private readonly size = defaultPoolSize(),
  ) {}

  /**
   * Runs a task on the least busy thread (threads start on first use). `transfer` moves buffers to
   * the worker instead of copying them; they are unusable here afterwards.
   */
  run<N extends keyof T & string>(name: N, input: Parameters<T[N]>[0], transfer: ArrayBuffer[] = []): Promise<ReturnType<T[N]>> {
    const thread = this.pick();
    return new Promise((resolve, reject) => {
      thread.post(this.nextId++, name, input, transfer, { resolve: resolve as (v: unknown) => void, reject });
    });
  }

  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((t) => t.terminate()));
  }

  private pick(): Thread {
    if (this.threads.length < this.size) {
      const t = new Thread(this.entry, (dead) => {
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
