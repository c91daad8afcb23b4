import type { PayloadAlert } from './payload.js';
import {
  StoreError,
  type AlertFilter,
  type AlertStore,
  type IncomingNotification,
  type NotificationFilter,
  type PruneResult,
  type RecordResult,
  type StoreSummary,
  type TransitionRecord,
} from './alert-store.js';
import { POSTGRES as D, spell } from './dialect.js';
import { PRUNE_LOCK } from './postgres-migrations.js';
import { PostgresPool, type PostgresStoreOptions, type Run } from './postgres-pool.js';
import * as q from './queries.js';
import { toAlert, type AlertRow } from './rows.js';
import * as w from './writes.js';

export { postgresStoreError, type PostgresStoreOptions } from './postgres-pool.js';

const byFingerprint = (a: PayloadAlert, b: PayloadAlert) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0);

/**
 * The alert store in a PostgreSQL database shared by every vigil replica. A notification is one
 * transaction, committed before `record` resolves (the sink answers 200 only then). Its identity is
 * the UNIQUE dedup_key: INSERT ... ON CONFLICT DO NOTHING decides which copy is stored, whichever
 * replica each copy reaches; the other copy waits for that commit and is counted as a duplicate.
 * Rows are locked in one order (notification, alerts by fingerprint, receiver totals), so two
 * transactions never wait on each other in a cycle. Concurrent commits share WAL flushes in the
 * server, so notifications need no batching of their own here. The SQL shared with SQLite is in
 * queries.ts and writes.ts.
 */
export class PostgresAlertStore implements AlertStore {
  private constructor(private readonly pool: PostgresPool) {}

  /** Connects and migrates; rejects (with the pool closed) when the database cannot be used. */
  static async open(o: PostgresStoreOptions, onIdleError: (e: Error) => void = () => undefined): Promise<PostgresAlertStore> {
    return new PostgresAlertStore(await PostgresPool.open(o, onIdleError));
  }

  async record(n: IncomingNotification, gone?: AbortSignal): Promise<RecordResult> {
    return this.pool.transaction('storing the notification', (run) => this.recordIn(run, n), gone);
  }

  private async recordIn(run: Run, n: IncomingNotification): Promise<RecordResult> {
    const inserted = await run<{ id: number }>(w.notificationInsert(D, n, ' ON CONFLICT (dedup_key) DO NOTHING RETURNING id'));
    const alerts = [...n.payload.alerts].sort(byFingerprint);
    const id = inserted.rows[0]?.id;
    if (id === undefined) return this.recordDuplicate(run, n, alerts);
    for (const a of alerts) await this.applyAlert(run, a, n, id);
    await run(w.receiverTotalsUpsert(D, n));
    return { id, duplicate: false };
  }

  /** A copy of a stored notification: counted, and it still proves its alerts (the Watchdog) arrive. */
  private async recordDuplicate(run: Run, n: IncomingNotification, alerts: PayloadAlert[]): Promise<RecordResult> {
    const stored = await run<{ id: number }>(spell(D, 'UPDATE notifications SET duplicates = duplicates + 1 WHERE dedup_key = ? RETURNING id', [n.key]));
    const id = stored.rows[0]?.id;
    // Pruned between the two statements: the sender's retry stores it anew.
    if (id === undefined) throw new StoreError('busy', 'storing the notification: its first copy was just pruned');
    for (const a of alerts) await run(w.alertTouch(D, a, n.receivedAt));
    await run(w.receiverDuplicateUpsert(D, n));
    return { id, duplicate: true };
  }

  /**
   * Upserts the alert's current state; a new alert, a new state or a new start time is a transition.
   * The previous state is read under the row lock (FOR UPDATE), after an insert that found the row
   * (it waits for a concurrent insert of the same alert to commit first).
   */
  private async applyAlert(run: Run, a: PayloadAlert, n: IncomingNotification, notificationId: number): Promise<void> {
    const values = w.alertValues(a, n);
    // A new alert and its first transition in one round trip.
    const created = await run({
      sql: `WITH created AS (
         INSERT INTO alerts (fingerprint, alertname, severity, state, labels, annotations, generator_url, receiver,
           starts_at, ends_at, first_seen_at, last_seen_at, last_firing_at, notifications)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, 1) ON CONFLICT (fingerprint) DO NOTHING RETURNING fingerprint)
       INSERT INTO transitions (fingerprint, state, at, starts_at, ends_at, notification_id)
       SELECT fingerprint, $4, $11, $9, $10, $13 FROM created`,
      args: [...values, notificationId],
    });
    if (created.rowCount === 1) return;
    const before = (
      await run<{ state: string; starts_at: number }>(spell(D, 'SELECT state, starts_at FROM alerts WHERE fingerprint = ? FOR UPDATE', [a.fingerprint]))
    ).rows[0];
    const changed = before === undefined || before.state !== a.status || before.starts_at !== a.startsAt;
    await run({
      sql: `UPDATE alerts SET alertname = $2, severity = $3, state = $4, labels = $5, annotations = $6, generator_url = $7,
         receiver = $8, starts_at = $9, ends_at = $10, last_seen_at = $11,
         last_firing_at = coalesce($12, last_firing_at), notifications = notifications + 1
       WHERE fingerprint = $1`,
      args: values,
    });
    if (changed) await run(w.transitionInsert(D, a, n, notificationId));
  }

  async alerts(f: AlertFilter) {
    // One query per group (state, and severity while firing), each for what the page still lacks.
    const rows: q.StoredAlertRow[] = [];
    for (const group of q.alertGroups(f)) {
      if (rows.length > f.limit) break;
      rows.push(...(await this.pool.rows<q.StoredAlertRow>('reading alerts', q.alertsQuery(D, f, group, f.limit + 1 - rows.length))));
    }
    return q.alertsPage(rows.values(), f);
  }

  async timeline(fingerprint: string) {
    const [row] = await this.pool.rows<AlertRow>('reading an alert', q.alertQuery(D, fingerprint));
    if (!row) return undefined;
    const transitions = await this.pool.rows<TransitionRecord>('reading an alert', q.transitionsQuery(D, fingerprint));
    return { alert: toAlert(row), transitions };
  }

  async notifications(f: NotificationFilter) {
    const metas = await this.pool.rows<q.NotificationMeta>('reading notifications', q.notificationsQuery(D, f));
    // The bodies are read only for the rows that fit the budget, in one round trip.
    const { page, more } = q.notificationsWithin(metas.values(), f);
    const bodies = await this.pool.rows<{ id: number; body: string }>('reading notifications', {
      sql: 'SELECT id, body FROM notifications WHERE id = ANY($1::bigint[])',
      args: [page.map((m) => m.id)],
    });
    const byId = new Map(bodies.map((r) => [r.id, r.body]));
    return q.notificationsPage(page, more, (id) => byId.get(id));
  }

  async summary(): Promise<StoreSummary> {
    const receivers = await this.pool.rows<q.ReceiverTotalsRow>('reading totals', { sql: q.RECEIVER_TOTALS, args: [] });
    const alerts = await this.pool.rows<StoreSummary['alerts'][number]>('reading totals', { sql: D.alertCounts, args: [] });
    return q.summaryOf(receivers, alerts);
  }

  async lastFiring(alertname: string): Promise<number | undefined> {
    const [row] = await this.pool.rows<{ at: number | null }>('reading the Watchdog', q.lastFiringQuery(D, alertname));
    return row?.at ?? undefined;
  }

  /** One replica prunes at a time: the others find the lock taken and skip this round. */
  async prune(before: number): Promise<PruneResult> {
    return this.pool.transaction('pruning', async (run) => {
      const locked = (await run<{ ok: boolean }>(spell(D, 'SELECT pg_try_advisory_xact_lock(?) AS ok', [PRUNE_LOCK]))).rows[0]?.ok;
      if (!locked) return { notifications: 0, transitions: 0, alerts: 0, receivers: 0 };
      const deletes = q.pruneQueries(D, before);
      const del = async (k: keyof PruneResult) => (await run(deletes[k])).rowCount ?? 0;
      return {
        notifications: await del('notifications'),
        transitions: await del('transitions'),
        alerts: await del('alerts'),
        receivers: await del('receivers'),
      };
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
