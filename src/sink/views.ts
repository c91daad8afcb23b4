import type { AlertRecord, NotificationRecord, TransitionRecord } from './store.js';

/** The JSON shapes of the read API: store records with times as RFC 3339 text. */

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : iso(ms));

export const alertView = (a: AlertRecord) => ({
  fingerprint: a.fingerprint,
  alertname: a.alertname,
  state: a.state,
  severity: a.severity,
  labels: a.labels,
  annotations: a.annotations,
  startsAt: iso(a.startsAt),
  resolvedAt: isoOrNull(a.endsAt),
  generatorURL: a.generatorURL,
  receiver: a.receiver,
  firstSeen: iso(a.firstSeen),
  lastSeen: iso(a.lastSeen),
  notifications: a.notifications,
});

export const transitionView = (t: TransitionRecord) => ({
  state: t.state,
  at: iso(t.at),
  startsAt: iso(t.startsAt),
  endsAt: isoOrNull(t.endsAt),
  notificationId: t.notificationId,
});

export const notificationView = (n: NotificationRecord) => ({
  id: n.id,
  receivedAt: iso(n.receivedAt),
  receiver: n.receiver,
  status: n.status,
  groupKey: n.groupKey,
  alertCount: n.alertCount,
  truncatedAlerts: n.truncatedAlerts,
  duplicates: n.duplicates,
  /** The notification exactly as Alertmanager sent it. */
  payload: JSON.parse(n.body) as unknown,
});

export interface HealthView {
  healthy: boolean;
  alertname: string;
  lastSeen: number | undefined;
  silenceMs: number;
  maxSilenceMs: number;
}

export const healthView = (h: HealthView) => ({
  status: h.healthy ? 'ok' : 'broken',
  watchdog: {
    alertname: h.alertname,
    healthy: h.healthy,
    lastSeen: isoOrNull(h.lastSeen),
    silenceSeconds: Math.round(h.silenceMs / 1000),
    maxSilenceSeconds: h.maxSilenceMs / 1000,
  },
});
