import pg from 'pg';
import type { PayloadAlert } from './payload-schema.js';
import { migratePostgres, PRUNE_LOCK } from './postgres-migrations.js';
import { notificationsWhere, postgresPlaceholder, takeWithin, toAlert, toNotification, type AlertRow, type NotificationRow } from './rows.js';
import {
  StoreError,
  type AlertCursor,
  type AlertFilter,
  type AlertRecord,
  type AlertStore,
  type IncomingNotification,
  type NotificationFilter,
  type PruneResult,
  type RecordResult,
  type StoreSummary,
  type TransitionRecord,
} from './store.js';

export interface PostgresStoreOptions {
  host: string;
  port: number;
  user: string;
  database: string;
  /** Read when a connection is made, so a rotated password is picked up. */
  password?: (() => Promise<string>) | undefined;
  ssl: false | { rejectUnauthorized: boolean; ca?: string | undefined };
  poolSize: number;
  /** Server-side statement_timeout; the client gives up a little later should the server not answer. */
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

/** BIGINT (20) and numeric counts come back as numbers: every value stored fits in 2^53 (epoch ms, counters). */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** SQLSTATE classes and codes → what the sink answers. */
const CONNECTION = /^(08|57P0[1-3]|53300|28)/;
const BUSY = new Set(['57014', '40001', '40P01', '55P03']);

/** A node-postgres failure as a StoreError: down or refusing → unavailable; timeout, deadlock → busy. */
export function postgresStoreError(what: string, e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  const err = e as { code?: unknown; message?: string };
  const code = typeof err.code === 'string' ? err.code : '';
  const message = `${what}: ${code ? `${code}: ` : ''}${err.message ?? String(e)}`;
  if (BUSY.has(code) || /Query read timeout/i.test(message)) return new StoreError('busy', message);
  if (code === '53100') return new StoreError('full', message);
  // Socket errors (ECONNREFUSED...), a dropped connection, a connect timeout, the server shutting down.
  if (CONNECTION.test(code) || /^E[A-Z]+$/.test(code) || /Connection terminated|timeout exceeded when trying to connect|not queryable/i.test(message)) {
    return new StoreError('unavailable', message, 'unreachable');
  }
  return new StoreError('failed', message);
}

/**
 * The alert store in a PostgreSQL database shared by every vigil replica. A notification is one
 * transaction, committed before `record` resolves (the sink answers 200 only then). Its identity is
 * the UNIQUE dedup_key: INSERT ... ON CONFLICT DO NOTHING decides which copy is stored, whichever
 * replica each copy reaches; the other copy waits for that commit and is counted as a duplicate.
 * Rows are locked in one order (notification, alerts by fingerprint, receiver totals), so two
 * transactions never wait on each other in a cycle. Concurrent commits share WAL flushes in the
 * server, so notifications need no batching of their own here.
 */
export class PostgresAlertStore implements AlertStore {
  /** Callers waiting for one of the pool's connections (so connect_timeout measures the database, not the queue). */
  private readonly waiting: Array<() => void> = [];
  private busy = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly size: number,
  ) {}

  /** Connects and migrates; rejects (with the pool closed) when the database cannot be used. */
  static async open(o: PostgresStoreOptions, onIdleError: (e: Error) => void = () => undefined): Promise<PostgresAlertStore> {
    const pool = new pg.Pool({
      host: o.host,
      port: o.port,
      user: o.user,
      database: o.database,
      ...(o.password ? { password: o.password } : {}),
      ssl: o.ssl,
      max: o.poolSize,
      statement_timeout: o.statementTimeoutMs,
      query_timeout: o.statementTimeoutMs + 2000,
      connectionTimeoutMillis: o.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      application_name: 'vigil',
      types,
    });
    // A pooled connection the server drops (restart, failover) must not crash the process.
    pool.on('error', onIdleError);
    try {
      const client = await pool.connect();
      try {
        await migratePostgres(client);
      } finally {
        client.release();
      }
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw postgresStoreError('opening the PostgreSQL store', e);
    }
    return new PostgresAlertStore(pool, o.poolSize);
  }

  async record(n: IncomingNotification): Promise<RecordResult> {
    return this.transaction('storing the notification', (c) => this.recordIn(c, n));
  }

  private async recordIn(c: pg.PoolClient, n: IncomingNotification): Promise<RecordResult> {
    const p = n.payload;
    const inserted = await c.query<{ id: number }>(
      `INSERT INTO notifications (dedup_key, received_at, receiver, status, group_key, alert_count, truncated_alerts, body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (dedup_key) DO NOTHING RETURNING id`,
      [n.key, n.receivedAt, p.receiver, p.status, p.groupKey, p.alerts.length, p.truncatedAlerts, n.body],
    );
    const alerts = [...p.alerts].sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0));
    const id = inserted.rows[0]?.id;
    if (id === undefined) return this.recordDuplicate(c, n, alerts);
    for (const a of alerts) await this.applyAlert(c, a, n, id);
    await c.query(
      `INSERT INTO receiver_stats AS s (receiver, firing, resolved, truncated_alerts, last_notification_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (receiver) DO UPDATE SET firing = s.firing + excluded.firing, resolved = s.resolved + excluded.resolved,
         truncated_alerts = s.truncated_alerts + excluded.truncated_alerts,
         last_notification_at = greatest(s.last_notification_at, excluded.last_notification_at)`,
      [p.receiver, Number(p.status === 'firing'), Number(p.status === 'resolved'), p.truncatedAlerts, n.receivedAt],
    );
    return { id, duplicate: false };
  }

  /** A copy of a stored notification: counted, and it still proves its alerts (the Watchdog) arrive. */
  private async recordDuplicate(c: pg.PoolClient, n: IncomingNotification, alerts: PayloadAlert[]): Promise<RecordResult> {
    const stored = await c.query<{ id: number }>('UPDATE notifications SET duplicates = duplicates + 1 WHERE dedup_key = $1 RETURNING id', [n.key]);
    const id = stored.rows[0]?.id;
    // Pruned between the two statements: the sender's retry stores it anew.
    if (id === undefined) throw new StoreError('busy', 'storing the notification: its first copy was just pruned');
    for (const a of alerts) {
      await c.query(
        `UPDATE alerts SET last_seen_at = greatest(last_seen_at, $1),
           last_firing_at = CASE WHEN $2 THEN greatest(last_firing_at, $1) ELSE last_firing_at END
         WHERE fingerprint = $3`,
        [n.receivedAt, a.status === 'firing', a.fingerprint],
      );
    }
    await c.query(
      `INSERT INTO receiver_stats AS s (receiver, duplicates, last_notification_at) VALUES ($1, 1, $2)
       ON CONFLICT (receiver) DO UPDATE SET duplicates = s.duplicates + 1,
         last_notification_at = greatest(s.last_notification_at, excluded.last_notification_at)`,
      [n.payload.receiver, n.receivedAt],
    );
    return { id, duplicate: true };
  }

  /**
   * Upserts the alert's current state; a new alert, a new state or a new start time is a transition.
   * The previous state is read under the row lock (FOR UPDATE), after an insert that found the row
   * (it waits for a concurrent insert of the same alert to commit first).
   */
  private async applyAlert(c: pg.PoolClient, a: PayloadAlert, n: IncomingNotification, notificationId: number): Promise<void> {
    const startsAt = a.startsAt as number;
    const endsAt = a.status === 'resolved' ? (a.endsAt ?? n.receivedAt) : null;
    const values = [
      a.fingerprint,
      a.labels.alertname ?? '',
      a.labels.severity ?? '',
      a.status,
      JSON.stringify(a.labels),
      JSON.stringify(a.annotations),
      a.generatorURL,
      n.payload.receiver,
      startsAt,
      endsAt,
      n.receivedAt,
      a.status === 'firing' ? n.receivedAt : null,
    ];
    // A new alert and its first transition in one round trip.
    const created = await c.query(
      `WITH created AS (
         INSERT INTO alerts (fingerprint, alertname, severity, state, labels, annotations, generator_url, receiver,
           starts_at, ends_at, first_seen_at, last_seen_at, last_firing_at, notifications)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12, 1) ON CONFLICT (fingerprint) DO NOTHING RETURNING fingerprint)
       INSERT INTO transitions (fingerprint, state, at, starts_at, ends_at, notification_id)
       SELECT fingerprint, $4, $11, $9, $10, $13 FROM created`,
      [...values, notificationId],
    );
    if (created.rowCount === 1) return;
    const before = (await c.query<{ state: string; starts_at: number }>('SELECT state, starts_at FROM alerts WHERE fingerprint = $1 FOR UPDATE', [a.fingerprint])).rows[0];
    const changed = before === undefined || before.state !== a.status || before.starts_at !== startsAt;
    await c.query(
      `UPDATE alerts SET alertname = $2, severity = $3, state = $4, labels = $5, annotations = $6, generator_url = $7,
         receiver = $8, starts_at = $9, ends_at = $10, last_seen_at = $11,
         last_firing_at = coalesce($12, last_firing_at), notifications = notifications + 1
       WHERE fingerprint = $1`,
      values,
    );
    if (!changed) return;
    await c.query('INSERT INTO transitions (fingerprint, state, at, starts_at, ends_at, notification_id) VALUES ($1, $2, $3, $4, $5, $6)', [
      a.fingerprint,
      a.status,
      n.receivedAt,
      startsAt,
      endsAt,
      notificationId,
    ]);
  }

  async alerts(f: AlertFilter): Promise<{ alerts: AlertRecord[]; next?: AlertCursor }> {
    // Firing first, then resolved, each newest start first, then fingerprint (descending, byte order as in SQLite).
    const states = (f.state ? [f.state] : (['firing', 'resolved'] as const)).filter((s) => !f.after || f.after.firing || s === 'resolved');
    const rows: Array<AlertRow & { stored_bytes: number }> = [];
    for (const state of states) {
      if (rows.length > f.limit) break;
      const args: Array<string | number> = [state];
      const conds = ['state = $1'];
      for (const [column, value] of [
        ['alertname', f.alertname],
        ['severity', f.severity],
      ] as const) {
        if (value === undefined) continue;
        args.push(value);
        conds.push(`${column} = $${args.length}`);
      }
      if (f.after && (state === 'firing') === f.after.firing) {
        args.push(f.after.startsAt, f.after.fingerprint);
        conds.push(`(starts_at, fingerprint COLLATE "C") < ($${args.length - 1}, $${args.length} COLLATE "C")`);
      }
      args.push(f.limit + 1 - rows.length);
      rows.push(
        ...(await this.query<AlertRow & { stored_bytes: number }>(
          'reading alerts',
          `SELECT *, octet_length(labels) + octet_length(annotations) + octet_length(generator_url) AS stored_bytes
           FROM alerts WHERE ${conds.join(' AND ')} ORDER BY starts_at DESC, fingerprint COLLATE "C" DESC LIMIT $${args.length}`,
          args,
        )),
      );
    }
    const { page, more } = takeWithin(rows[Symbol.iterator](), f.limit, f.maxBytes, (r) => r.stored_bytes);
    const alerts = page.map(toAlert);
    const last = alerts[alerts.length - 1];
    return more && last ? { alerts, next: { firing: last.state === 'firing', startsAt: last.startsAt, fingerprint: last.fingerprint } } : { alerts };
  }

  async timeline(fingerprint: string): Promise<{ alert: AlertRecord; transitions: TransitionRecord[] } | undefined> {
    const [row] = await this.query<AlertRow>('reading an alert', 'SELECT * FROM alerts WHERE fingerprint = $1', [fingerprint]);
    if (!row) return undefined;
    const transitions = await this.query<TransitionRecord>(
      'reading an alert',
      `SELECT state, at, starts_at AS "startsAt", ends_at AS "endsAt", notification_id AS "notificationId"
       FROM transitions WHERE fingerprint = $1 ORDER BY id`,
      [fingerprint],
    );
    return { alert: toAlert(row), transitions };
  }

  async notifications(f: NotificationFilter) {
    const w = notificationsWhere(f, postgresPlaceholder);
    // The bodies are read only for the rows that fit the budget.
    const metas = await this.query<Omit<NotificationRow, 'body'> & { body_bytes: number }>(
      'reading notifications',
      `SELECT id, received_at, receiver, status, group_key, alert_count, truncated_alerts, duplicates, octet_length(body) AS body_bytes
       FROM notifications ${w.sql} ORDER BY received_at DESC, id DESC LIMIT $${w.args.length + 1}`,
      [...w.args, f.limit + 1],
    );
    const { page, more } = takeWithin(metas[Symbol.iterator](), f.limit, f.maxBytes, (r) => r.body_bytes);
    const bodies = new Map(
      (await this.query<{ id: number; body: string }>('reading notifications', 'SELECT id, body FROM notifications WHERE id = ANY($1::bigint[])', [page.map((m) => m.id)])).map((r) => [r.id, r.body]),
    );
    const notifications = page.map((m) => toNotification({ ...m, body: bodies.get(m.id) ?? '' }));
    const last = notifications[notifications.length - 1];
    return more && last ? { notifications, next: { receivedAt: last.receivedAt, id: last.id } } : { notifications };
  }

  async summary(): Promise<StoreSummary> {
    const receivers = await this.query<StoreSummary['receivers'][number]>(
      'reading totals',
      `SELECT receiver, firing, resolved, duplicates, truncated_alerts AS "truncatedAlerts",
         last_notification_at AS "lastNotificationAt" FROM receiver_stats ORDER BY receiver`,
    );
    const alerts = await this.query<StoreSummary['alerts'][number]>(
      'reading totals',
      'SELECT state, severity, count(*) AS count FROM alerts GROUP BY state, severity ORDER BY state, severity',
    );
    return { receivers: receivers.map((r) => ({ ...r, lastNotificationAt: r.lastNotificationAt ?? undefined })), alerts };
  }

  async lastFiring(alertname: string): Promise<number | undefined> {
    const [row] = await this.query<{ at: number | null }>('reading the Watchdog', 'SELECT max(last_firing_at) AS at FROM alerts WHERE alertname = $1', [alertname]);
    return row?.at ?? undefined;
  }

  /** One replica prunes at a time: the others find the lock taken and skip this round. */
  async prune(before: number): Promise<PruneResult> {
    return this.transaction('pruning', async (c) => {
      const locked = (await c.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [PRUNE_LOCK])).rows[0]?.ok;
      if (!locked) return { notifications: 0, transitions: 0, alerts: 0, receivers: 0 };
      const del = async (sql: string) => (await c.query(sql, [before])).rowCount ?? 0;
      return {
        notifications: await del('DELETE FROM notifications WHERE received_at < $1'),
        transitions: await del('DELETE FROM transitions WHERE at < $1'),
        alerts: await del('DELETE FROM alerts WHERE last_seen_at < $1'),
        receivers: await del('DELETE FROM receiver_stats WHERE coalesce(last_notification_at, 0) < $1'),
      };
    });
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  private async query<R extends pg.QueryResultRow>(what: string, sql: string, args: unknown[] = []): Promise<R[]> {
    await this.slot();
    try {
      return (await this.pool.query<R>(sql, args)).rows;
    } catch (e) {
      throw postgresStoreError(what, e);
    } finally {
      this.free();
    }
  }

  /** Waits for a free connection of the pool: more concurrent callers than pool_size queue here. */
  private async slot(): Promise<void> {
    if (this.busy < this.size) {
      this.busy++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Hands the connection to the next waiting caller, if any. */
  private free(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy--;
  }

  private async transaction<T>(what: string, body: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.slot();
    let c: pg.PoolClient;
    try {
      c = await this.pool.connect();
    } catch (e) {
      this.free();
      throw postgresStoreError(what, e);
    }
    let broken: unknown;
    // A connection dropped between two statements emits 'error' on the checked-out client: without
    // a listener that would end the process; the next statement fails instead and is rolled back.
    const dropped = (e: Error) => (broken = e);
    c.on('error', dropped);
    try {
      await c.query('BEGIN');
      const result = await body(c);
      await c.query('COMMIT');
      return result;
    } catch (e) {
      // A connection that failed mid-transaction is thrown away, not returned to the pool.
      await c.query('ROLLBACK').catch((rollbackFailed: unknown) => (broken = rollbackFailed));
      throw postgresStoreError(what, e);
    } finally {
      c.off('error', dropped);
      c.release(broken instanceof Error ? broken : undefined);
      this.free();
    }
  }
}
