import type Database from 'better-sqlite3';
import { ALERTS_PER_TURN, type PayloadAlert } from './payload.js';
import type {
  AlertStore,
  AlertFilter,
  IncomingNotification,
  NotificationFilter,
  PruneResult,
  RecordResult,
  StoreSummary,
  TransitionRecord,
} from './alert-store.js';
import { SQLITE as D, spell, type Query } from './dialect.js';
import * as q from './queries.js';
import { toAlert, type AlertRow } from './rows.js';
import { openDatabase, type SqliteStoreOptions } from './sqlite-connection.js';
import { sqliteStoreError } from './sqlite-errors.js';
import { keep } from './sqlite-kept.js';
import { SqliteWriteQueue } from './sqlite-write-queue.js';
import * as w from './writes.js';

export type { SqliteStoreOptions } from './sqlite-connection.js';
export { sqliteStoreError } from './sqlite-errors.js';

/** Changes to alert_counts: state and severity → delta. */
type Counts = Map<string, number>;
const bump = (counts: Counts, state: string, severity: string, by: number) => {
  const key = `${state}\u0000${severity}`;
  counts.set(key, (counts.get(key) ?? 0) + by);
};

/**
 * The alert store in one SQLite file, schema versioned by user_version. `record` resolves once the
 * notification is committed (the sink answers 200 only then); writes go through a SqliteWriteQueue
 * (group commit), reads wait for a write spread over turns. The SQL shared with PostgreSQL is in
 * queries.ts and writes.ts; this file holds what only SQLite does: the connection, its
 * synchronous transactions, and the alert_counts table.
 */
export class SqliteAlertStore implements AlertStore {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly writes: SqliteWriteQueue;
  private readonly pruneTx: Database.Transaction<(before: number) => PruneResult>;

  constructor(opts: SqliteStoreOptions) {
    this.db = openDatabase(opts);
    this.writes = new SqliteWriteQueue(this.db, (n) => this.recordSteps(n), sqliteStoreError);
    this.pruneTx = this.db.transaction((before: number) => this.pruneOnce(before));
  }

  record(n: IncomingNotification, gone?: AbortSignal): Promise<RecordResult> {
    return this.writes.record(n, gone);
  }

  /** Writes a notification, yielding after each ALERTS_PER_TURN alerts (see SqliteWriteQueue). */
  private *recordSteps(n: IncomingNotification): Generator<void, RecordResult> {
    // Looked up first (the transaction holds the write lock): an ignored insert would still use up an id.
    const stored = this.get<{ id: number }>(spell(D, 'SELECT id FROM notifications WHERE dedup_key = ?', [n.key]));
    if (stored) return this.recordDuplicate(n, stored.id);
    const id = Number(this.run(w.notificationInsert(D, n)).lastInsertRowid);
    const counts: Counts = new Map();
    const alerts = n.payload.alerts;
    for (let i = 0; i < alerts.length; i++) {
      if (i > 0 && i % ALERTS_PER_TURN === 0) yield;
      this.applyAlert(alerts[i] as PayloadAlert, n, id, counts);
    }
    this.addCounts(counts);
    this.run(w.receiverTotalsUpsert(D, n));
    return { id, duplicate: false };
  }

  /** A copy of a stored notification: counted, and it still proves its alerts (the Watchdog) arrive. */
  private recordDuplicate(n: IncomingNotification, id: number): RecordResult {
    this.run(spell(D, 'UPDATE notifications SET duplicates = duplicates + 1 WHERE id = ?', [id]));
    this.run(w.receiverDuplicateUpsert(D, n));
    for (const a of n.payload.alerts) this.run(w.alertTouch(D, a, n.receivedAt));
    return { id, duplicate: true };
  }

  /** Upserts the alert's current state; a new state or a new start time is a transition. */
  private applyAlert(a: PayloadAlert, n: IncomingNotification, notificationId: number, counts: Counts): void {
    const before = this.get<{ state: string; severity: string; starts_at: number }>(
      spell(D, 'SELECT state, severity, starts_at FROM alerts WHERE fingerprint = ?', [a.fingerprint]),
    );
    if (before) bump(counts, before.state, before.severity, -1);
    bump(counts, a.status, a.labels.severity ?? '', 1);
    const v = w.alertValues(a, n);
    this.stmt(
      `INSERT INTO alerts (fingerprint, alertname, severity, state, labels, annotations, generator_url, receiver,
         starts_at, ends_at, first_seen_at, last_seen_at, last_firing_at, notifications)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (fingerprint) DO UPDATE SET alertname = excluded.alertname, severity = excluded.severity,
         state = excluded.state, labels = excluded.labels, annotations = excluded.annotations,
         generator_url = excluded.generator_url, receiver = excluded.receiver, starts_at = excluded.starts_at,
         ends_at = excluded.ends_at, last_seen_at = excluded.last_seen_at,
         last_firing_at = coalesce(excluded.last_firing_at, last_firing_at), notifications = notifications + 1`,
      // The time seen is both first_seen_at and last_seen_at.
    ).run(...v.slice(0, 11), ...v.slice(10));
    if (before && before.state === a.status && before.starts_at === a.startsAt) return;
    this.run(w.transitionInsert(D, a, n, notificationId));
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

  async alerts(f: AlertFilter) {
    await this.writes.idle();
    // One query per group (state, and severity while firing), each for what the page still lacks (read whole: see sqlite-kept.ts).
    const rows: q.StoredAlertRow[] = [];
    for (const group of q.alertGroups(f)) {
      if (rows.length > f.limit) break;
      rows.push(...this.all<q.StoredAlertRow>(q.alertsQuery(D, f, group, f.limit + 1 - rows.length)));
    }
    return q.alertsPage(rows.values(), f);
  }

  async timeline(fingerprint: string) {
    await this.writes.idle();
    const row = this.get<AlertRow>(q.alertQuery(D, fingerprint));
    if (!row) return undefined;
    const transitions = this.all<TransitionRecord>(q.transitionsQuery(D, fingerprint));
    return { alert: toAlert(row), transitions };
  }

  async notifications(f: NotificationFilter) {
    await this.writes.idle();
    // The body is read only for the rows that fit: past the budget the page ends before the next body is loaded.
    const { page, more } = q.notificationsWithin(this.all<q.NotificationMeta>(q.notificationsQuery(D, f)).values(), f);
    const body = this.stmt('SELECT body FROM notifications WHERE id = ?').pluck();
    return q.notificationsPage(page, more, (id) => body.get(id) as string | undefined);
  }

  async summary(): Promise<StoreSummary> {
    await this.writes.idle();
    return q.summaryOf(this.stmt(q.RECEIVER_TOTALS).all() as q.ReceiverTotalsRow[], this.stmt(D.alertCounts).all() as StoreSummary['alerts']);
  }

  async lastFiring(alertname: string): Promise<number | undefined> {
    await this.writes.idle();
    return this.get<{ at: number | null }>(q.lastFiringQuery(D, alertname))?.at ?? undefined;
  }

  async prune(before: number): Promise<PruneResult> {
    await this.writes.idle();
    try {
      return this.pruneTx.immediate(before);
    } catch (e) {
      throw sqliteStoreError('pruning', e);
    }
  }

  private pruneOnce(before: number): PruneResult {
    const gone = this.stmt('SELECT state, severity, count(*) AS n FROM alerts WHERE last_seen_at < ? GROUP BY state, severity').all(before) as Array<{
      state: string;
      severity: string;
      n: number;
    }>;
    const counts: Counts = new Map();
    for (const g of gone) bump(counts, g.state, g.severity, -g.n);
    this.addCounts(counts);
    const deletes = q.pruneQueries(D, before);
    return {
      notifications: this.run(deletes.notifications).changes,
      transitions: this.run(deletes.transitions).changes,
      alerts: this.run(deletes.alerts).changes,
      receivers: this.run(deletes.receivers).changes,
    };
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    await this.writes.drained();
    this.writes.flush();
    this.db.close();
  }

  /**
   * Statements are prepared once per SQL text (the filters make a handful of variants), and kept
   * for the life of the process, past this store's (see sqlite-kept.ts).
   */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = keep(this.db.prepare(sql))));
    return s;
  }

  private run(query: Query): Database.RunResult {
    return this.stmt(query.sql).run(...query.args);
  }

  private get<R>(query: Query): R | undefined {
    return this.stmt(query.sql).get(...query.args) as R | undefined;
  }

  /** Every row at once: never iterate(), whose iterator would be one more object to free (see sqlite-kept.ts). */
  private all<R>(query: Query): R[] {
    return this.stmt(query.sql).all(...query.args) as R[];
  }
}
