import type { AlertState } from './payload.js';
import {
  SEVERITY_ORDER,
  type AlertCursor,
  type AlertFilter,
  type AlertRecord,
  type NotificationFilter,
  type NotificationRecord,
  type PruneResult,
  type Severity,
  type StoreSummary,
} from './alert-store.js';
import { spell, where, type Condition, type Dialect, type Query } from './dialect.js';
import { takeWithin, toAlert, toNotification, type AlertRow, type NotificationRow } from './rows.js';

/** The reads both stores share, and retention's deletes, over a dialect. */

export type StoredAlertRow = AlertRow & { stored_bytes: number };
export type NotificationMeta = Omit<NotificationRow, 'body'> & { body_bytes: number };

/** One stretch of the alert list: the alerts of one state (and, firing, of one severity rank). */
export interface AlertGroup {
  state: AlertState;
  /** Firing only: the place in SEVERITY_ORDER, or one past its end for any other severity. */
  severityRank: number;
}

/** An alert's severity rank among firing alerts (see SEVERITY_ORDER). */
export const severityRank = (severity: string): number => {
  const i = (SEVERITY_ORDER as readonly string[]).indexOf(severity);
  return i < 0 ? SEVERITY_ORDER.length : i;
};

/** The list's groups in order: firing by severity rank (each of SEVERITY_ORDER, then any other), then resolved. */
const GROUPS: AlertGroup[] = [
  ...Array.from({ length: SEVERITY_ORDER.length + 1 }, (_, severityRank) => ({ state: 'firing' as const, severityRank })),
  { state: 'resolved', severityRank: 0 },
];
const isCursorGroup = (c: AlertCursor, g: AlertGroup) => c.firing === (g.state === 'firing') && c.severityRank === g.severityRank;

/** The groups a page of alerts reads, in list order (firing first, most severe first), from the cursor's group on. */
export function alertGroups(f: AlertFilter): AlertGroup[] {
  const after = f.after;
  const from = after ? GROUPS.findIndex((g) => isCursorGroup(after, g)) : 0;
  const severe = (g: AlertGroup) =>
    g.state === 'resolved' ||
    ((f.severity === undefined || g.severityRank === severityRank(f.severity)) &&
      (f.minSeverity === undefined || g.severityRank <= severityRank(f.minSeverity)));
  return GROUPS.filter((g, i) => i >= from && (!f.state || g.state === f.state) && severe(g));
}

/**
 * At most `limit` alerts of one group in list order (newest start first, then fingerprint byte by
 * byte, both descending), from the cursor on: a seek on alerts_in_list_order, never a sort.
 */
export function alertsQuery(d: Dialect, f: AlertFilter, group: AlertGroup, limit: number): Query {
  const c: Condition[] = [['state = ?', group.state]];
  if (f.alertname !== undefined) c.push(['alertname = ?', f.alertname]);
  if (f.severity !== undefined) c.push(['severity = ?', f.severity]);
  else if (group.state === 'firing') c.push(severityIn(group.severityRank));
  if (f.minSeverity !== undefined && group.state === 'resolved') c.push(atLeast(f.minSeverity));
  if (f.after && isCursorGroup(f.after, group)) {
    c.push([`(starts_at, ${d.byteOrder('fingerprint')}) < (?, ${d.byteOrder('?')})`, f.after.startsAt, f.after.fingerprint]);
  }
  const w = where(c);
  const stored = ['labels', 'annotations', 'generator_url'].map((column) => d.bytes(column)).join(' + ');
  return spell(
    d,
    `SELECT *, ${stored} AS stored_bytes FROM alerts ${w.sql}
     ORDER BY starts_at DESC, ${d.byteOrder('fingerprint')} DESC LIMIT ?`,
    [...w.args, limit],
  );
}

/** The severities of a firing group: one of SEVERITY_ORDER, or any other. */
function severityIn(rank: number): Condition {
  const named = SEVERITY_ORDER[rank];
  return named ? ['severity = ?', named] : [`severity NOT IN (${SEVERITY_ORDER.map(() => '?').join(', ')})`, ...SEVERITY_ORDER];
}

/** The severities as severe as `least` or more: a prefix of SEVERITY_ORDER. */
function atLeast(least: Severity): Condition {
  const named = SEVERITY_ORDER.slice(0, severityRank(least) + 1);
  return [`severity IN (${named.map(() => '?').join(', ')})`, ...named];
}

/** A page of alerts from rows in list order: stops reading at the first row left behind. */
export function alertsPage(rows: IterableIterator<StoredAlertRow>, f: AlertFilter): { alerts: AlertRecord[]; next?: AlertCursor } {
  const { page, more } = takeWithin(rows, f.limit, f.maxBytes, (r) => r.stored_bytes);
  const alerts = page.map(toAlert);
  const last = alerts[alerts.length - 1];
  if (!more || !last) return { alerts };
  const firing = last.state === 'firing';
  return { alerts, next: { firing, severityRank: firing ? severityRank(last.severity) : 0, startsAt: last.startsAt, fingerprint: last.fingerprint } };
}

/** One more than a page of notifications, newest first, without their bodies (read only for the rows that fit). */
export function notificationsQuery(d: Dialect, f: NotificationFilter): Query {
  const c: Condition[] = [];
  if (f.since !== undefined) c.push(['received_at >= ?', f.since]);
  if (f.until !== undefined) c.push(['received_at <= ?', f.until]);
  if (f.receiver !== undefined) c.push(['receiver = ?', f.receiver]);
  if (f.after) c.push(['(received_at < ? OR (received_at = ? AND id < ?))', f.after.receivedAt, f.after.receivedAt, f.after.id]);
  const w = where(c);
  return spell(
    d,
    `SELECT id, received_at, receiver, status, group_key, alert_count, truncated_alerts, duplicates, ${d.bytes('body')} AS body_bytes
     FROM notifications ${w.sql} ORDER BY received_at DESC, id DESC LIMIT ?`,
    [...w.args, f.limit + 1],
  );
}

/** The notifications that fit the page (stops reading at the first row left behind), bodies not yet read. */
export const notificationsWithin = (metas: IterableIterator<NotificationMeta>, f: NotificationFilter) =>
  takeWithin(metas, f.limit, f.maxBytes, (r) => r.body_bytes);

/** A page of notifications with their bodies; `next` is where the following page starts. */
export function notificationsPage(page: NotificationMeta[], more: boolean, body: (id: number) => string | undefined) {
  const notifications: NotificationRecord[] = page.map((m) => toNotification({ ...m, body: body(m.id) ?? '' }));
  const last = notifications[notifications.length - 1];
  return more && last ? { notifications, next: { receivedAt: last.receivedAt, id: last.id } } : { notifications };
}

export const alertQuery = (d: Dialect, fingerprint: string): Query => spell(d, 'SELECT * FROM alerts WHERE fingerprint = ?', [fingerprint]);

/** An alert's transitions, oldest first, as TransitionRecord. */
export const transitionsQuery = (d: Dialect, fingerprint: string): Query =>
  spell(
    d,
    `SELECT state, at, starts_at AS "startsAt", ends_at AS "endsAt", notification_id AS "notificationId"
     FROM transitions WHERE fingerprint = ? ORDER BY id`,
    [fingerprint],
  );

/** Per-receiver totals, as ReceiverTotalsRow. */
export const RECEIVER_TOTALS = `SELECT receiver, firing, resolved, duplicates, truncated_alerts AS "truncatedAlerts",
  last_notification_at AS "lastNotificationAt" FROM receiver_stats ORDER BY receiver`;

type ReceiverTotals = StoreSummary['receivers'][number];
export type ReceiverTotalsRow = Omit<ReceiverTotals, 'lastNotificationAt'> & { lastNotificationAt: number | null };

export const summaryOf = (receivers: ReceiverTotalsRow[], alerts: StoreSummary['alerts']): StoreSummary => ({
  receivers: receivers.map((r): ReceiverTotals => ({ ...r, lastNotificationAt: r.lastNotificationAt ?? undefined })),
  alerts,
});

/** When a notification last mentioned a firing alert of that name, as `at`. */
export const lastFiringQuery = (d: Dialect, alertname: string): Query =>
  spell(d, 'SELECT max(last_firing_at) AS at FROM alerts WHERE alertname = ?', [alertname]);

/** What retention deletes, one statement per count of PruneResult. */
export function pruneQueries(d: Dialect, before: number): Record<keyof PruneResult, Query> {
  const del = (sql: string) => spell(d, sql, [before]);
  return {
    notifications: del('DELETE FROM notifications WHERE received_at < ?'),
    transitions: del('DELETE FROM transitions WHERE at < ?'),
    alerts: del('DELETE FROM alerts WHERE last_seen_at < ?'),
    receivers: del('DELETE FROM receiver_stats WHERE coalesce(last_notification_at, 0) < ?'),
  };
}
