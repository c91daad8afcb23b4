import type { Worker } from 'node:worker_threads';
import { startThread } from '../support/threads.js';

/**
 * bcrypt comparisons in a worker thread of their own, so a round (~80 ms of CPU at cost 10) never
 * holds the main thread's event loop: scrapes, handshakes and pages go on during a flood of wrong
 * passwords. One thread, started on the first comparison; a round runs at a time and only a few
 * may wait, the rest are answered `busy` at once. Should the thread die, the comparisons it held
 * are answered `busy` (never a success) and the next one starts a new thread.
 */

/** Bcrypt rounds that may queue behind the running one before new ones are turned away. */
export const MAX_WAITING_ROUNDS = 8;

/** A comparison's answer: whether the password matches the hash, or `busy` (not checked). */
export type CompareOutcome = boolean | 'busy';
export type Comparer = (password: string, hash: string) => Promise<CompareOutcome>;

export interface BcryptRequest {
  id: number;
  password: string;
  hash: string;
}
export interface BcryptReply {
  id: number;
  ok: boolean;
}

/** Starts the thread's worker (from dist/ or, under the tests, the TypeScript source). */
export const startBcryptWorker = (): Worker => startThread(import.meta.url, 'bcrypt-worker');

export class BcryptThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, (outcome: CompareOutcome) => void>();
  private nextId = 0;
  private done = 0;

  constructor(private readonly start: () => Worker = startBcryptWorker) {}

  /** Rounds the thread (and those before it) finished. */
  get rounds(): number {
    return this.done;
  }

  /** Whether a thread is running now. */
  get running(): boolean {
    return this.worker !== undefined;
  }

  readonly compare: Comparer = (password, hash) => {
    if (this.pending.size > MAX_WAITING_ROUNDS) return Promise.resolve('busy');
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.ref();
      worker.postMessage({ id, password, hash } satisfies BcryptRequest);
    });
  };

  /** Stops the thread; comparisons it held are answered `busy`. */
  async close(): Promise<void> {
    const w = this.worker;
    this.lost();
    await w?.terminate();
  }

  private spawn(): Worker {
    const w = this.start();
    this.worker = w;
    w.on('message', (m: BcryptReply) => {
      const resolve = this.pending.get(m.id);
      if (w !== this.worker || !resolve) return;
      this.pending.delete(m.id);
      this.done++;
      // An idle thread must not keep the process alive.
      if (this.pending.size === 0) w.unref();
      resolve(m.ok === true);
    });
    const died = () => {
      if (w === this.worker) this.lost();
    };
    w.on('error', died);
    w.on('exit', died);
    return w;
  }

  private lost(): void {
    this.worker = undefined;
    for (const resolve of this.pending.values()) resolve('busy');
    this.pending.clear();
  }
}
