import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ensureWritableDir } from './store-dir.js';
import Database from 'better-sqlite3';
import { ALERTS_PER_TURN, type AlertState, type PayloadAlert } from './payload-schema.js';
import { migrate } from './migrations.js';
import { takeWithin, toAlert, toNotification, type AlertRow, type NotificationRow } from './rows.js';
import {
  fileSystemError,
  StoreError,
  type UnavailableReason,
  type AlertCursor,
  type AlertFilter,
  type AlertRecord,
  type AlertStore,
  type IncomingNotification,
  type NotificationFilter,
  type NotificationRecord,
  type PruneResult,
  type RecordResult,
  type StoreSummary,
  type TransitionRecord,
} from './store.js';

export interface SqliteStoreOptions {
  path: string;
  /** Bytes; a write that would grow the file beyond fails as `full` (SQLITE_FULL). */
  maxSize?: number | undefined;
  /**
   * How long a write waits for another connection's lock. better-sqlite3 is synchronous, so this
   * blocks the event loop: keep it short, the sender retries a 503.
   */
  busyTimeoutMs?: number;
}

/** SQLite result codes (extended codes start with these) that make the whole store unusable. */
const UNUSABLE: ReadonlyArray<[RegExp, UnavailableReason]> = [
  [/^SQLITE_(CORRUPT|NOTADB)/, 'corrupt'],
  [/^SQLITE_READONLY/, 'read_only'],
  [/^SQLITE_(CANTOPEN|IOERR)/, 'cannot_open'],
];

/** An SQLite (or file system) failure as a StoreError (the transaction or savepoint has been rolled back). */
export function sqliteStoreError(what: string, e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  const fs = fileSystemError(what, e);
  if (fs) return fs;
  const code = String((e as { code?: unknown }).code ?? '');
  const message = `${what}: ${code ? `${code}: ` : ''}${(e as Error).message}`;
  const unusable = UNUSABLE.find(([re]) => re.test(code));
  if (unusable) return new StoreError('unavailable', message, unusable[1]);
  const kind = code.startsWith('SQLITE_FULL') ? 'full' : /^SQLITE_(BUSY|LOCKED)/.test(code) ? 'busy' : 'failed';
  return new StoreError(kind, message);
}
const storeError = sqliteStoreError;

interface Pending {
  n: IncomingNotification;
  resolve: (r: RecordResult) => void;
  reject: (e: StoreError) => void;
}

type Outcome = { ok: RecordResult } | { err: unknown };

/**
 * The alert store in one SQLite file: WAL journal, synchronous=FULL so a commit is on disk when
 * `record` resolves (the sink answers 200 only then), schema versioned by user_version.
 *
 * Group commit: the notifications that arrive within one turn of the event loop are written in one
 * transaction (one fsync), each in its own savepoint, so one that fails is rolled back alone.
 */
export class SqliteAlertStore implements AlertStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly recordTx: Database.Transaction<(n: IncomingNotification) => RecordResult>;
  private readonly batchTx: Database.Transaction<(batch: IncomingNotification[]) => Outcome[]>;
  private queue: Pending[] = [];
  private largeWrite?: Promise<void> | undefined;
  private readonly pruneTx: Database.Transaction<(before: number) => PruneResult>;

  constructor(opts: SqliteStoreOptions) {
    if (opts.path !== ':memory:') ensureWritableDir(dirname(opts.path));
    this.db = new Database(opts.path);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      // Temporary tables and sorts in memory: a read-only root filesystem has no writable /tmp.
      this.db.pragma('temp_store = MEMORY');
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.round(opts.busyTimeoutMs ?? 500))}`);
      if (opts.maxSize !== undefined) {
        const pageSize = this.db.pragma('page_size', { simple: true }) as number;
        this.db.pragma(`max_page_count = ${Math.max(1, Math.floor(opts.maxSize / pageSize))}`);
      }
      migrate(this.db);
    } catch (e) {
      this.db.close();
      throw e;
    }
    this.recordTx = this.db.transaction((n: IncomingNotification) => this.recordOnce(n));
    this.batchTx = this.db.transaction((batch: IncomingNotification[]) =>
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
    this.pruneTx = this.db.transaction((before: number) => this.pruneOnce(before));
  }

  record(n: IncomingNotification): Promise<RecordResult> {
    if (n.payload.alerts.length > ALERTS_PER_TURN) return this.recordInTurns(n);
    return new Promise((resolve, reject) => {
      this.queue.push({ n, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
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
      const steps = this.recordSteps(n);
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
      throw storeError('storing the notification', e);
    }
  }

  /** Resolves once no notification is being written across turns. */
  private async idle(): Promise<void> {
    while (this.largeWrite) await this.largeWrite;
  }

  /** Commits the queued notifications; each promise settles only after the commit (or its failure). */
  private flush(): void {
    // A notification being written across turns holds the transaction: the queue waits for it.
    if (this.largeWrite) return;
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.batchTx.immediate(batch.map((p) => p.n));
    } catch (e) {
      const err = storeError('storing the notification', e);
      // The whole batch was rolled back. Unless the store is locked (each retry would wait for the
      // lock again), give each notification its own transaction: those that fit are stored.
      if (batch.length > 1 && err.kind !== 'busy') for (const p of batch) this.commitAlone(p);
      else for (const p of batch) p.reject(err);
      return;
    }
    outcomes.forEach((o, i) => {
      const p = batch[i] as Pending;
      if ('ok' in o) p.resolve(o.ok);
      else p.reject(storeError('storing the notification', o.err));
    });
  }

  private recordOnce(n: IncomingNotification): RecordResult {
    const steps = this.recordSteps(n);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /** recordOnce in steps: yields after each ALERTS_PER_TURN alerts (see recordInTurns). */
  private *recordSteps(n: IncomingNotification): Generator<void, RecordResult> {
    const p = n.payload;
    // Looked up first (the transaction holds the write lock): an ignored insert would still use up an id.
    const stored = this.stmt('SELECT id FROM notifications WHERE dedup_key = ?').get(n.key) as { id: number } | undefined;
    if (stored) return this.recordDuplicate(n, stored.id);
    const inserted = this.stmt(
      `INSERT INTO notifications (dedup_key, received_at, receiver, status, group_key, alert_count, truncated_alerts, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(n.key, n.receivedAt, p.receiver, p.status, p.groupKey, p.alerts.length, p.truncatedAlerts, n.body);
    const id = Number(inserted.lastInsertRowid);
    const counts = new Map<string, number>();
    for (let i = 0; i < p.alerts.length; i++) {
      if (i > 0 && i % ALERTS_PER_TURN === 0) yield;
      this.applyAlert(p.alerts[i] as PayloadAlert, n, id, counts);
    }
    this.addCounts(counts);
    this.stmt(
      `INSERT INTO receiver_stats (receiver, firing, resolved, truncated_alerts, last_notification_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (receiver) DO UPDATE SET firing = firing + excluded.firing, resolved = resolved + excluded.resolved,
         truncated_alerts = truncated_alerts + excluded.truncated_alerts,
         last_notification_at = max(coalesce(last_notification_at, 0), excluded.last_notification_at)`,
    ).run(p.receiver, Number(p.status === 'firing'), Number(p.status === 'resolved'), p.truncatedAlerts, n.receivedAt);
    return { id, duplicate: false };
  }

  /** A copy of a stored notification: counted, and it still proves its alerts (the Watchdog) arrive. */
  private recordDuplicate(n: IncomingNotification, id: number): RecordResult {
    this.stmt('UPDATE notifications SET duplicates = duplicates + 1 WHERE id = ?').run(id);
    this.stmt(
      `INSERT INTO receiver_stats (receiver, duplicates, last_notification_at) VALUES (?, 1, ?)
       ON CONFLICT (receiver) DO UPDATE SET duplicates = duplicates + 1,
         last_notification_at = max(coalesce(last_notification_at, 0), excluded.last_notification_at)`,
    ).run(n.payload.receiver, n.receivedAt);
    const touch = this.stmt(
      `UPDATE alerts SET last_seen_at = max(last_seen_at, @at),
         last_firing_at = CASE WHEN @firing THEN max(coalesce(last_firing_at, 0), @at) ELSE last_firing_at END
       WHERE fingerprint = @fingerprint`,
    );
    for (const a of n.payload.alerts) touch.run({ at: n.receivedAt, firing: Number(a.status === 'firing'), fingerprint: a.fingerprint });
    return { id, duplicate: true };
  }

  /**
   * Upserts the alert's current state; a new state or a new start time is a transition. `counts`
   * collects the changes to alert_counts (state and severity → delta).
   */
  private applyAlert(a: PayloadAlert, n: IncomingNotification, notificationId: number, counts: Map<string, number>): void {
    const before = this.stmt('SELECT state, severity, starts_at FROM alerts WHERE fingerprint = ?').get(a.fingerprint) as
      | { state: string; severity: string; starts_at: number }
      | undefined;
    const startsAt = a.startsAt as number;
    const severity = a.labels.severity ?? '';
    const bump = (state: string, sev: string, by: number) => {
      const key = `${state}\u0000${sev}`;
      counts.set(key, (counts.get(key) ?? 0) + by);
    };
    if (before) bump(before.state, before.severity, -1);
    bump(a.status, severity, 1);
    const endsAt = a.status === 'resolved' ? (a.endsAt ?? n.receivedAt) : null;
    this.stmt(
      `INSERT INTO alerts (fingerprint, alertname, severity, state, labels, annotations, generator_url, receiver,
         starts_at, ends_at, first_seen_at, last_seen_at, last_firing_at, notifications)
       VALUES (@fingerprint, @alertname, @severity, @state, @labels, @annotations, @generatorURL, @receiver,
         @startsAt, @endsAt, @at, @at, @lastFiring, 1)
       ON CONFLICT (fingerprint) DO UPDATE SET alertname = excluded.alertname, severity = excluded.severity,
         state = excluded.state, labels = excluded.labels, annotations = excluded.annotations,
         generator_url = excluded.generator_url, receiver = excluded.receiver, starts_at = excluded.starts_at,
         ends_at = excluded.ends_at, last_seen_at = excluded.last_seen_at,
         last_firing_at = coalesce(excluded.last_firing_at, last_firing_at), notifications = notifications + 1`,
    ).run({
      fingerprint: a.fingerprint,
      alertname: a.labels.alertname ?? '',
      severity,
      state: a.status,
      labels: JSON.stringify(a.labels),
      annotations: JSON.stringify(a.annotations),
      generatorURL: a.generatorURL,
      receiver: n.payload.receiver,
      startsAt,
      endsAt,
      at: n.receivedAt,
      lastFiring: a.status === 'firing' ? n.receivedAt : null,
    });
    if (before && before.state === a.status && before.starts_at === startsAt) return;
    this.stmt('INSERT INTO transitions (fingerprint, state, at, starts_at, ends_at, notification_id) VALUES (?, ?, ?, ?, ?, ?)').run(
      a.fingerprint,
      a.status,
      n.receivedAt,
      startsAt,
      endsAt,
      notificationId,
    );
  }

  private addCounts(counts: ReadonlyMap<string, number>): void {
    const add = this.stmt(
      `INSERT INTO alert_counts (state, severity, count) VALUES (?, ?, ?)
       ON CONFLICT (state, severity) DO UPDATE SET count = count + excluded.count`,
    );
    for (const [key, by] of counts) {
      if (by === 0) continue;
      const [state, severity] = key.split('\u0000');
      add.run(state, severity, by);
    }
    this.stmt('DELETE FROM alert_counts WHERE count = 0').run();
  }

  private commitAlone(p: Pending): void {
    try {
      p.resolve(this.recordTx.immediate(p.n));
    } catch (e) {
      p.reject(storeError('storing the notification', e));
    }
  }

  async alerts(f: AlertFilter): Promise<{ alerts: AlertRecord[]; next?: AlertCursor }> {
    await this.idle();
    const filters: string[] = [];
    const args: string[] = [];
    for (const [column, value] of [
      ['alertname', f.alertname],
      ['severity', f.severity],
    ] as const) {
      if (value === undefined) continue;
      filters.push(`${column} = ?`);
      args.push(value);
    }
    // Firing first, then resolved: one query per state, each a seek on alerts_in_list_order
    // (migration 2), the cursor's state from the cursor's position on.
    const states = (f.state ? [f.state] : (['firing', 'resolved'] as const)).filter((s) => !f.after || f.after.firing || s === 'resolved');
    const stmt = (withCursor: boolean) =>
      this.stmt(
        `SELECT *, length(CAST(labels AS BLOB)) + length(CAST(annotations AS BLOB)) + length(CAST(generator_url AS BLOB)) AS stored_bytes
         FROM alerts WHERE ${['state = ?', ...filters, ...(withCursor ? ['(starts_at, fingerprint) < (?, ?)'] : [])].join(' AND ')}
         ORDER BY starts_at DESC, fingerprint DESC LIMIT ?`,
      );
    const after = f.after;
    const limit = f.limit;
    function* rows(): Generator<AlertRow & { stored_bytes: number }> {
      for (const state of states) {
        const cursorHere = after !== undefined && (state === 'firing') === after.firing;
        const params = [state, ...args, ...(cursorHere ? [after.startsAt, after.fingerprint] : []), limit + 1];
        yield* stmt(cursorHere).iterate(...params) as IterableIterator<AlertRow & { stored_bytes: number }>;
      }
    }
    const { page, more } = takeWithin(rows(), f.limit, f.maxBytes, (r) => r.stored_bytes);
    const alerts = page.map(toAlert);
    const last = alerts[alerts.length - 1];
    return more && last ? { alerts, next: { firing: last.state === 'firing', startsAt: last.startsAt, fingerprint: last.fingerprint } } : { alerts };
  }

  async timeline(fingerprint: string): Promise<{ alert: AlertRecord; transitions: TransitionRecord[] } | undefined> {
    await this.idle();
    const row = this.stmt('SELECT * FROM alerts WHERE fingerprint = ?').get(fingerprint) as AlertRow | undefined;
    if (!row) return undefined;
    const transitions = this.stmt(
      `SELECT state, at, starts_at AS startsAt, ends_at AS endsAt, notification_id AS notificationId
       FROM transitions WHERE fingerprint = ? ORDER BY id`,
    ).all(fingerprint) as TransitionRecord[];
    return { alert: toAlert(row), transitions };
  }

  async notifications(f: NotificationFilter) {
    await this.idle();
    const where: string[] = [];
    const args: Array<string | number> = [];
    const add = (cond: string, ...values: Array<string | number>) => {
      where.push(cond);
      args.push(...values);
    };
    if (f.since !== undefined) add('received_at >= ?', f.since);
    if (f.until !== undefined) add('received_at <= ?', f.until);
    if (f.receiver !== undefined) add('receiver = ?', f.receiver);
    if (f.after) add('(received_at < ? OR (received_at = ? AND id < ?))', f.after.receivedAt, f.after.receivedAt, f.after.id);
    // The body is read only for the rows that fit: past the budget the page ends before the next body is loaded.
    const sql = `SELECT id, received_at, receiver, status, group_key, alert_count, truncated_alerts, duplicates,
        length(CAST(body AS BLOB)) AS body_bytes FROM notifications ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY received_at DESC, id DESC LIMIT ?`;
    const rows = this.stmt(sql).iterate(...args, f.limit + 1) as IterableIterator<Omit<NotificationRow, 'body'> & { body_bytes: number }>;
    const { page: metas, more } = takeWithin(rows, f.limit, f.maxBytes, (r) => r.body_bytes);
    const body = this.stmt('SELECT body FROM notifications WHERE id = ?').pluck();
    const page = metas.map((m) => toNotification({ ...m, body: (body.get(m.id) as string | undefined) ?? '' }));
    const last = page[page.length - 1];
    return more && last ? { notifications: page, next: { receivedAt: last.receivedAt, id: last.id } } : { notifications: page };
  }

  async summary(): Promise<StoreSummary> {
    await this.idle();
    const receivers = this.stmt(
      `SELECT receiver, firing, resolved, duplicates, truncated_alerts AS truncatedAlerts,
         last_notification_at AS lastNotificationAt FROM receiver_stats ORDER BY receiver`,
    ).all() as StoreSummary['receivers'];
    const alerts = this.stmt('SELECT state, severity, count FROM alert_counts ORDER BY state, severity').all() as StoreSummary['alerts'];
    return { receivers: receivers.map((r) => ({ ...r, lastNotificationAt: r.lastNotificationAt ?? undefined })), alerts };
  }

  async lastFiring(alertname: string): Promise<number | undefined> {
    await this.idle();
    const row = this.stmt('SELECT max(last_firing_at) AS at FROM alerts WHERE alertname = ?').get(alertname) as { at: number | null };
    return row.at ?? undefined;
  }

  async prune(before: number): Promise<PruneResult> {
    await this.idle();
    try {
      return this.pruneTx.immediate(before);
    } catch (e) {
      throw storeError('pruning', e);
    }
  }

  private pruneOnce(before: number): PruneResult {
    const gone = this.stmt('SELECT state, severity, count(*) AS n FROM alerts WHERE last_seen_at < ? GROUP BY state, severity').all(before) as Array<{
      state: string;
      severity: string;
      n: number;
    }>;
    this.addCounts(new Map(gone.map((g) => [`${g.state}\u0000${g.severity}`, -g.n])));
    return {
      notifications: this.stmt('DELETE FROM notifications WHERE received_at < ?').run(before).changes,
      transitions: this.stmt('DELETE FROM transitions WHERE at < ?').run(before).changes,
      alerts: this.stmt('DELETE FROM alerts WHERE last_seen_at < ?').run(before).changes,
      receivers: this.stmt('DELETE FROM receiver_stats WHERE coalesce(last_notification_at, 0) < ?').run(before).changes,
    };
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    await this.idle();
    this.flush();
    this.db.close();
  }

  /** Statements are prepared once per SQL text (the filters make a handful of variants). */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }
}
