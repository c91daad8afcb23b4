import type { AlertState } from './payload.js';
import type { AlertRecord, NotificationRecord } from './alert-store.js';

/** The rows both stores keep (same column names in SQLite and PostgreSQL) and how they read back. */
export interface AlertRow {
  fingerprint: string;
  alertname: string;
  severity: string;
  state: AlertState;
  labels: string;
  annotations: string;
  generator_url: string;
  receiver: string;
  starts_at: number;
  ends_at: number | null;
  first_seen_at: number;
  last_seen_at: number;
  notifications: number;
}

export interface NotificationRow {
  id: number;
  received_at: number;
  receiver: string;
  status: AlertState;
  group_key: string;
  alert_count: number;
  truncated_alerts: number;
  duplicates: number;
  body: string;
}

export const toAlert = (r: AlertRow): AlertRecord => ({
  fingerprint: r.fingerprint,
  alertname: r.alertname,
  severity: r.severity,
  state: r.state,
  labels: JSON.parse(r.labels) as Record<string, string>,
  annotations: JSON.parse(r.annotations) as Record<string, string>,
  generatorURL: r.generator_url,
  receiver: r.receiver,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  firstSeen: r.first_seen_at,
  lastSeen: r.last_seen_at,
  notifications: r.notifications,
});

export const toNotification = (r: NotificationRow): NotificationRecord => ({
  id: r.id,
  receivedAt: r.received_at,
  receiver: r.receiver,
  status: r.status,
  groupKey: r.group_key,
  alertCount: r.alert_count,
  truncatedAlerts: r.truncated_alerts,
  duplicates: r.duplicates,
  body: r.body,
});

/**
 * Takes rows in order while they fit: at most `limit`, and no row that would bring the sum of
 * `bytes` past `maxBytes` (the first row always fits). `more`: a row was left behind. Stops reading
 * at the first row left behind, so a budget bounds what is loaded too.
 */
export function takeWithin<T>(rows: IterableIterator<T>, limit: number, maxBytes: number | undefined, bytes: (r: T) => number): { page: T[]; more: boolean } {
  const page: T[] = [];
  let used = 0;
  for (const r of rows) {
    const b = bytes(r);
    if (page.length >= limit || (maxBytes !== undefined && page.length > 0 && used + b > maxBytes)) {
      rows.return?.();
      return { page, more: true };
    }
    page.push(r);
    used += b;
  }
  return { page, more: false };
}
