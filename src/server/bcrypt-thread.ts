import type { Worker } from 'node:worker_threads';
import { startThread } from '../support/threads.js';
import { CheckQueue, type Lane } from './check-queue.js';

/**
 * bcrypt comparisons in a worker thread of their own, so a round (~80 ms of CPU at cost 10) never
 * holds the main thread's event loop: scrapes, handshakes and pages go on during a flood of wrong
 * passwords. One thread, started on the first comparison, given one round at a time; the others
 * wait here in lanes (`CheckQueue`), so that the next round is the most deserving one, and those
 * the queue turns away are answered `busy` at once. Should the thread die, the comparisons it held
 * or that waited are answered `busy` (never a success) and the next one starts a new thread.
 */

/** A comparison's answer: whether the password matches the hash, or `busy` (not checked). */
export type CompareOutcome = boolean | 'busy';
/** Compares `password` with `hash`; `lane` (default `clean`) says how soon, by what the client's address showed lately. */
export type Comparer = (password: string, hash: string, lane?: Lane) => Promise<CompareOutcome>;

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

interface Round {
  password: string;
  hash: string;
  resolve: (outcome: CompareOutcome) => void;
}

export class BcryptThread {
  private worker: Worker | undefined;
  private readonly queue = new CheckQueue<Round>();
  /** The round the thread runs now. */
  private inRound: { id: number; resolve: (outcome: CompareOutcome) => void } | undefined;
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

  readonly compare: Comparer = (password, hash, lane = 'clean') =>
    new Promise((resolve) => {
      this.queue.offer({ password, hash, resolve }, lane)?.resolve('busy');
      this.next();
    });

  /** Stops the thread; comparisons it held or that waited are answered `busy`. */
  async close(): Promise<void> {
    const w = this.worker;
    this.lost();
    await w?.terminate();
  }

  /** Gives the thread the next waiting round, unless it runs one. */
  private next(): void {
    if (this.inRound) return;
    const round = this.queue.take();
    if (!round) return;
    const worker = this.worker ?? this.spawn();
    const id = this.nextId++;
    this.inRound = { id, resolve: round.resolve };
    worker.ref();
    worker.postMessage({ id, password: round.password, hash: round.hash } satisfies BcryptRequest);
  }

  private spawn(): Worker {
    const w = this.start();
    this.worker = w;
    w.on('message', (m: BcryptReply) => {
      const round = this.inRound;
      if (w !== this.worker || round?.id !== m.id) return;
      this.inRound = undefined;
      this.done++;
      // An idle thread must not keep the process alive.
      if (this.queue.size === 0) w.unref();
      round.resolve(m.ok === true);
      this.next();
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
    const held = [this.inRound, ...this.queue.drain()];
    this.inRound = undefined;
    for (const r of held) r?.resolve('busy');
  }
}
