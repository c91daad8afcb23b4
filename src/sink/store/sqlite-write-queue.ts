import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { ALERTS_PER_TURN } from '../payload-schema.js';
import type { IncomingNotification, RecordResult, StoreError } from './alert-store.js';

/** Writes one notification in steps: yields after each ALERTS_PER_TURN alerts. */
export type RecordSteps = (n: IncomingNotification) => Generator<void, RecordResult>;

interface Pending {
  n: IncomingNotification;
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
 * transaction across turns instead (see recordInTurns).
 */
export class SqliteWriteQueue {
  private readonly recordTx: Database.Transaction<(n: IncomingNotification) => RecordResult>;
  private readonly batchTx: Database.Transaction<(batch: IncomingNotification[]) => Outcome[]>;
  private queue: Pending[] = [];
  private largeWrite?: Promise<void> | undefined;

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

  /** Resolves once the notification is committed (rejects with a StoreError when it is not). */
  record(n: IncomingNotification): Promise<RecordResult> {
    if (n.payload.alerts.length > ALERTS_PER_TURN) return this.recordInTurns(n);
    return new Promise((resolve, reject) => {
      this.queue.push({ n, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Resolves once no notification is being written across turns (reads wait for it: nobody sees it half-written). */
  async idle(): Promise<void> {
    while (this.largeWrite) await this.largeWrite;
  }

  /** Commits the queued notifications; each promise settles only after the commit (or its failure). */
  flush(): void {
    // A notification being written across turns holds the transaction: the queue waits for it.
    if (this.largeWrite) return;
    const batch = this.queue.splice(0);
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

  /**
   * A notification with many alerts is written in its own transaction, a slice of alerts per turn
   * of the event loop, so the scrapes and requests arriving meanwhile are answered. Until it commits,
   * other writes wait (flush) and reads wait (idle), so nobody sees it half-written.
   */
  private recordInTurns(n: IncomingNotification): Promise<RecordResult> {
    const run = (this.largeWrite ?? Promise.resolve()).then(() => this.writeInTurns(n));
    const done: Promise<void> = run.then(
      () => undefined,
      () => undefined,
    );
    this.largeWrite = done;
    void done.then(() => {
      if (this.largeWrite !== done) return;
      this.largeWrite = undefined;
      if (this.queue.length) this.flush();
    });
    return run;
  }

  private async writeInTurns(n: IncomingNotification): Promise<RecordResult> {
    try {
      this.db.exec('BEGIN IMMEDIATE');
      const steps = this.steps(n);
      for (;;) {
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
