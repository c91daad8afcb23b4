import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { ALERTS_PER_TURN } from './payload.js';
import { checkSender, type IncomingNotification, type RecordResult, type StoreError } from './alert-store.js';

/** Writes one notification in steps: yields after each ALERTS_PER_TURN alerts. */
export type RecordSteps = (n: IncomingNotification) => Generator<void, RecordResult>;

interface Pending {
  n: IncomingNotification;
  gone?: AbortSignal | undefined;
  resolve: (r: RecordResult) => void;
  reject: (e: StoreError) => void;
}

type Outcome = { ok: RecordResult } | { err: unknown };

/** Runs the steps to the end at once. */
function runSteps(steps: Generator<void, RecordResult>): RecordResult {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The writes of one SQLite connection. Group commit: the notifications that arrive within one
 * turn of the event loop are written in one transaction (one fsync), each in its own savepoint, so
 * one that fails is rolled back alone. A notification with many alerts is written in its own
 * transaction across turns instead (see recordInTurns), one at a time; between two of them the
 * reads that waited and the small writes queued meanwhile go first, so a stream of large
 * notifications never holds a read (or the Watchdog's notification) for longer than one of them.
 * A notification whose sender has left is dropped unless it is already committed.
 */
export class SqliteWriteQueue {
  private readonly recordTx: Database.Transaction<(n: IncomingNotification) => RecordResult>;
  private readonly batchTx: Database.Transaction<(batch: IncomingNotification[]) => Outcome[]>;
  private queue: Pending[] = [];
  private large: Pending[] = [];
  /** The large write in progress: settles when it ends (committed or rolled back). */
  private writing?: Promise<void> | undefined;
  /** Set while large writes are queued or being written. */
  private draining?: Promise<void> | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly steps: RecordSteps,
    private readonly storeError: (what: string, e: unknown) => StoreError,
  ) {
    this.recordTx = db.transaction((n: IncomingNotification) => runSteps(this.steps(n)));
    this.batchTx = db.transaction((batch: IncomingNotification[]) =>
      batch.map((n): Outcome => {
        try {
          return { ok: this.recordTx(n) };
        } catch (e) {
          // SQLite may roll the whole transaction back (e.g. on SQLITE_FULL): then nothing of the batch is stored.
          if (!this.db.inTransaction) throw e;
          return { err: e };
        }
      }),
    );
  }

  /** Resolves once the notification is committed (rejects with a StoreError when it is not, `cancelled` once `gone` aborted first). */
  record(n: IncomingNotification, gone?: AbortSignal): Promise<RecordResult> {
    return new Promise((resolve, reject) => {
      const p = { n, gone, resolve, reject };
      if (n.payload.alerts.length > ALERTS_PER_TURN) {
        this.large.push(p);
        this.draining ??= Promise.resolve()
          .then(() => this.drain())
          .finally(() => (this.draining = undefined));
        return;
      }
      this.queue.push(p);
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Resolves once no notification is being written across turns (a read waits for it: nobody sees it half-written), not for those queued after it. */
  async idle(): Promise<void> {
    await this.writing;
  }

  /** Resolves once every large write queued has ended (closing waits for them). */
  async drained(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** Commits the queued notifications; each promise settles only after the commit (or its failure). */
  flush(): void {
    // A notification being written across turns holds the transaction: the queue waits for it.
    if (this.writing) return;
    const batch = this.queue.splice(0).filter((p) => this.stillWanted(p));
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.batchTx.immediate(batch.map((p) => p.n));
    } catch (e) {
      const err = this.storeError('storing the notification', e);
      // The whole batch was rolled back. Unless the store is locked (each retry would wait for the
      // lock again), give each notification its own transaction: those that fit are stored.
      if (batch.length > 1 && err.kind !== 'busy') for (const p of batch) this.commitAlone(p);
      else for (const p of batch) p.reject(err);
      return;
    }
    outcomes.forEach((o, i) => {
      const p = batch[i] as Pending;
      if ('ok' in o) p.resolve(o.ok);
      else p.reject(this.storeError('storing the notification', o.err));
    });
  }

  private commitAlone(p: Pending): void {
    try {
      p.resolve(this.recordTx.immediate(p.n));
    } catch (e) {
      p.reject(this.storeError('storing the notification', e));
    }
  }

  /** Whether its sender still waits for it; if not, it is rejected as cancelled. */
  private stillWanted(p: Pending): boolean {
    try {
      checkSender(p.gone);
      return true;
    } catch (e) {
      p.reject(e as StoreError);
      return false;
    }
  }

  /**
   * Writes the large notifications one by one. After each, the reads that waited for it run (their
   * continuations come before the next turn) and the small writes queued meanwhile are committed.
   */
  private async drain(): Promise<void> {
    for (let p = this.large.shift(); p; p = this.large.shift()) {
      if (!this.stillWanted(p)) continue;
      let ended = () => {};
      this.writing = new Promise((r) => (ended = r));
      try {
        p.resolve(await this.writeInTurns(p.n, p.gone));
      } catch (e) {
        p.reject(e as StoreError);
      } finally {
        this.writing = undefined;
        ended();
      }
      this.flush();
      await nextTurn();
    }
  }

  /**
   * A notification with many alerts is written in its own transaction, a slice of alerts per turn
   * of the event loop, so the scrapes and requests arriving meanwhile are answered. Until it commits,
   * other writes and reads wait, so nobody sees it half-written. Its sender leaving rolls it back.
   */
  private async writeInTurns(n: IncomingNotification, gone: AbortSignal | undefined): Promise<RecordResult> {
    try {
      this.db.exec('BEGIN IMMEDIATE');
      const steps = this.steps(n);
      for (;;) {
        checkSender(gone);
        const step = steps.next();
        if (step.done) {
          this.db.exec('COMMIT');
          return step.value;
        }
        await nextTurn();
      }
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw this.storeError('storing the notification', e);
    }
  }
}
