import type { PayloadAlert } from './payload.js';
import type { IncomingNotification } from './alert-store.js';
import { spell, type Dialect, type Query, type SqlValue } from './dialect.js';

/** The statements of the write path both stores share, over a dialect. */

/** The notification's row; `conflict` is what an engine appends (ON CONFLICT..., RETURNING...). */
export function notificationInsert(d: Dialect, n: IncomingNotification, conflict = ''): Query {
  const p = n.payload;
  return spell(
    d,
    `INSERT INTO notifications (dedup_key, received_at, receiver, status, group_key, alert_count, truncated_alerts, body)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)${conflict}`,
    [n.key, n.receivedAt, p.receiver, p.status, p.groupKey, p.alerts.length, p.truncatedAlerts, n.body],
  );
}

/** The receiver's totals, counting a stored notification. */
export function receiverTotalsUpsert(d: Dialect, n: IncomingNotification): Query {
  const p = n.payload;
  return spell(
    d,
    `INSERT INTO receiver_stats AS s (receiver, firing, resolved, truncated_alerts, last_notification_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (receiver) DO UPDATE SET firing = s.firing + excluded.firing, resolved = s.resolved + excluded.resolved,
       truncated_alerts = s.truncated_alerts + excluded.truncated_alerts,
       last_notification_at = ${d.greatest}(coalesce(s.last_notification_at, 0), excluded.last_notification_at)`,
    [p.receiver, Number(p.status === 'firing'), Number(p.status === 'resolved'), p.truncatedAlerts, n.receivedAt],
  );
}

/** The receiver's totals, counting a duplicate. */
export const receiverDuplicateUpsert = (d: Dialect, n: IncomingNotification): Query =>
  spell(
    d,
    `INSERT INTO receiver_stats AS s (receiver, duplicates, last_notification_at) VALUES (?, 1, ?)
     ON CONFLICT (receiver) DO UPDATE SET duplicates = s.duplicates + 1,
       last_notification_at = ${d.greatest}(coalesce(s.last_notification_at, 0), excluded.last_notification_at)`,
    [n.payload.receiver, n.receivedAt],
  );

/** A duplicate still proves its alerts (the Watchdog) arrive: their last sighting moves on. */
export const alertTouch = (d: Dialect, a: PayloadAlert, at: number): Query =>
  spell(
    d,
    `UPDATE alerts SET last_seen_at = ${d.greatest}(last_seen_at, ?),
       last_firing_at = CASE WHEN ? = 1 THEN ${d.greatest}(coalesce(last_firing_at, 0), ?) ELSE last_firing_at END
     WHERE fingerprint = ?`,
    [at, Number(a.status === 'firing'), at, a.fingerprint],
  );

/**
 * An alert's values as the notification shows it: fingerprint, alertname, severity, state, labels,
 * annotations, generator_url, receiver, starts_at, ends_at, seen at (first_seen_at, last_seen_at),
 * last_firing_at (null when resolved: an upsert keeps the one stored).
 */
export function alertValues(a: PayloadAlert, n: IncomingNotification): SqlValue[] {
  return [
    a.fingerprint,
    a.labels.alertname ?? '',
    a.labels.severity ?? '',
    a.status,
    JSON.stringify(a.labels),
    JSON.stringify(a.annotations),
    a.generatorURL,
    n.payload.receiver,
    a.startsAt as number,
    endsAt(a, n),
    n.receivedAt,
    a.status === 'firing' ? n.receivedAt : null,
  ];
}

/** When a resolved alert ended (as it says, else when its resolution arrived); null while firing. */
export const endsAt = (a: PayloadAlert, n: IncomingNotification): number | null => (a.status === 'resolved' ? (a.endsAt ?? n.receivedAt) : null);

/** A new state or a new start time of an alert. */
export const transitionInsert = (d: Dialect, a: PayloadAlert, n: IncomingNotification, notificationId: number): Query =>
  spell(d, 'INSERT INTO transitions (fingerprint, state, at, starts_at, ends_at, notification_id) VALUES (?, ?, ?, ?, ?, ?)', [
    a.fingerprint,
    a.status,
    n.receivedAt,
    a.startsAt as number,
    endsAt(a, n),
    notificationId,
  ]);
