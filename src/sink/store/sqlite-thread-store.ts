import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { startThread } from '../../support/threads.js';
import { ALERTS_PER_TURN } from './payload.js';
import { checkSender, StoreError, type AlertStore, type IncomingNotification, type RecordResult } from './alert-store.js';
import type { SqliteStoreOptions } from './sqlite-connection.js';
import { fromWire, type ReadCall, type StoreReply, type StoreRequest } from './sqlite-thread-protocol.js';

export interface SqliteThreadOptions extends SqliteStoreOptions {
  /** Heap limits of the store thread (it dies alone when it passes them, and is started again). */
  resourceLimits?: ResourceLimits;
  /** How soon a thread that died is started again, the first time (see restartDelay). */
  restartMs?: number;
}

/** What the store tells between calls: its thread died (calls fail until it is back), or a new one has opened the file. */
export interface ThreadSignals {
  lost(e: Error): void;
  back(): void;
}

/** A thread that ran this long before it died starts the count of restarts again. */
export const RESTART_STEADY_MS = 60_000;
/** The longest wait before a new thread, however often the last ones died. */
export const RESTART_MAX_MS = 30_000;

/**
 * How long to wait before starting the `attempt`th thread in a row (1 for the first after a thread
 * that ran steadily): `firstMs`, doubled for each that followed, up to RESTART_MAX_MS. A thread
 * that dies at once again and again (a heap too small for what the file holds) then costs a start
 * every 30 s, not every second.
 */
export function restartDelay(attempt: number, firstMs: number): number {
  return Math.min(RESTART_MAX_MS, firstMs * 2 ** Math.max(0, attempt - 1));
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** Requests without their id, which the thread assigns. */
type Call = StoreRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** One store thread: its requests in flight, each settled by the thread's answer or by its death. */
class StoreThread {
  readonly opened: Promise<void>;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private dead = false;
  private stopping = false;

  constructor(opts: SqliteThreadOptions, onDeath: (e: StoreError) => void) {
    const { resourceLimits, restartMs: _, ...storeOpts } = opts;
    this.worker = startThread(import.meta.url, 'sqlite-thread', { workerData: storeOpts, ...(resourceLimits ? { resourceLimits } : {}) });
    this.opened = new Promise((resolve, reject) => this.pending.set(0, { resolve: () => resolve(), reject }));
    this.worker.on('message', (m: StoreReply) => this.settle(m));
    const die = (why: string) => {
      if (this.dead) return;
      this.dead = true;
      const err = new StoreError('unavailable', `the alert store thread stopped (${why}): nothing in flight was acknowledged`, 'unreachable');
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      if (!this.stopping) onDeath(err);
    };
    this.worker.on('error', (e) => die(e.message));
    this.worker.on('exit', (code) => die(`exit code ${code}`));
  }

  /** Sends a request; `more` follows it with further messages of the same id. */
  call<R>(c: Call): { promise: Promise<R>; more: (m: Extract<Call, { call: 'more' | 'cancel' }>) => void } {
    const id = this.nextId++;
    const promise = new Promise<R>((resolve, reject) => {
      if (this.dead) return reject(new StoreError('unavailable', 'the alert store thread stopped', 'unreachable'));
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.sync();
      this.worker.postMessage({ ...c, id });
    });
    return { promise, more: (m) => !this.dead && this.worker.postMessage({ ...m, id }) };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.worker.terminate();
  }

  private settle(m: StoreReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    this.sync();
    if ('error' in m) p.reject(fromWire(m.error));
    else p.resolve(m.ok);
  }

  /** An idle store thread does not keep the process alive (like a closed file would not). */
  private sync(): void {
    if (this.pending.size) this.worker.ref();
    else this.worker.unref();
  }
}

/**
 * The SQLite alert store as the main thread sees it: every call is a message to the store thread
 * (sqlite-thread.ts, which runs SqliteAlertStore) and its answer, so no SQLite call runs on the
 * event loop that answers scrapes. `record` resolves only once the thread has committed the
 * notification. A thread that dies (a crash, out of memory) fails the calls in flight as
 * `unavailable` (`unreachable`), nothing of them acknowledged, and says so at once (`lost`); a new
 * thread opens the file a second later (longer if the threads keep dying, see restartDelay), calls
 * fail at once until it has, and says when it has (`back`).
 */
export class SqliteThreadStore implements AlertStore {
  private thread?: StoreThread | undefined;
  /** Why there is no thread now. */
  private down: Error = new StoreError('unavailable', 'the alert store is not open', 'cannot_open');
  private restart?: NodeJS.Timeout | undefined;
  private closed = false;
  /** Threads started in a row without one running steadily (see restartDelay). */
  private attempts = 0;
  private startedAt = 0;

  private constructor(
    private readonly opts: SqliteThreadOptions,
    private readonly signals: ThreadSignals,
  ) {}

  /** Opens the file in a new store thread; rejects with the opening's error (the thread then stops). */
  static async open(opts: SqliteThreadOptions, signals: ThreadSignals = { lost: () => undefined, back: () => undefined }): Promise<SqliteThreadStore> {
    const s = new SqliteThreadStore(opts, signals);
    await s.start();
    return s;
  }

  /**
   * A notification's alerts cross ALERTS_PER_TURN at a time, one slice per turn of the event loop,
   * so copying a large notification to the thread never holds a scrape for long. Once its sender
   * leaves, no more slices cross and the thread drops what it has unless it is committed.
   */
  async record(n: IncomingNotification, gone?: AbortSignal): Promise<RecordResult> {
    checkSender(gone);
    const all = n.payload.alerts;
    const t = this.current();
    const first = { ...n, payload: { ...n.payload, alerts: all.slice(0, ALERTS_PER_TURN) } };
    const { promise, more } = t.call<RecordResult>({ call: 'record', n: first, total: all.length });
    // Settled while the rest is being sent when the thread fails; awaited below.
    promise.catch(() => undefined);
    const cancel = () => more({ call: 'cancel' });
    gone?.addEventListener('abort', cancel, { once: true });
    try {
      for (let i = ALERTS_PER_TURN; i < all.length && !gone?.aborted; i += ALERTS_PER_TURN) {
        await nextTurn();
        more({ call: 'more', alerts: all.slice(i, i + ALERTS_PER_TURN) });
      }
      return await promise;
    } finally {
      gone?.removeEventListener('abort', cancel);
    }
  }

  alerts = this.read('alerts') as AlertStore['alerts'];
  timeline = this.read('timeline') as AlertStore['timeline'];
  notifications = this.read('notifications') as AlertStore['notifications'];
  summary = this.read('summary') as AlertStore['summary'];
  lastFiring = this.read('lastFiring') as AlertStore['lastFiring'];
  prune = this.read('prune') as AlertStore['prune'];

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restart);
    const t = this.thread;
    this.thread = undefined;
    if (!t) return;
    try {
      await t.call({ call: 'close' }).promise;
    } finally {
      await t.stop();
    }
  }

  private read(call: ReadCall): (...args: unknown[]) => Promise<unknown> {
    return (...args) => this.current().call({ call, args }).promise;
  }

  private current(): StoreThread {
    if (this.thread) return this.thread;
    throw this.down;
  }

  private async start(): Promise<void> {
    const t = new StoreThread(this.opts, (e) => this.died(t, e));
    try {
      await t.opened;
    } catch (e) {
      await t.stop();
      throw e;
    }
    if (this.closed) return void (await t.stop());
    this.thread = t;
    this.startedAt = performance.now();
  }

  /** Told at once (not at the next call): /readyz and the series say so while the new thread starts. */
  private died(t: StoreThread, e: StoreError): void {
    if (this.thread !== t) return;
    this.thread = undefined;
    this.down = e;
    if (performance.now() - this.startedAt >= RESTART_STEADY_MS) this.attempts = 0;
    this.signals.lost(e);
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.closed) return;
    this.attempts++;
    this.restart = setTimeout(
      () => {
        this.start().then(
          () => this.thread && this.signals.back(),
          (e: unknown) => {
            this.down = e as Error;
            this.scheduleRestart();
          },
        );
      },
      restartDelay(this.attempts, this.opts.restartMs ?? 1000),
    ).unref();
  }
}
