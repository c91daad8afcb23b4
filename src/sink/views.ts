import { jsonDepthExceeds } from './json-depth.js';
import type { AlertRecord, NotificationRecord, TransitionRecord } from './store/alert-store.js';

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

/**
 * Why a stored body is not shown: stored before intake bounded its depth, a client would choke on
 * it. (Every body was parsed as JSON at intake; it is not parsed again here, which would cost a
 * turn of the event loop per large body.)
 */
function unshowable(body: string, maxDepth: number): string | undefined {
  if (body === '') return 'stored payload is empty';
  return jsonDepthExceeds(body, maxDepth) ? `stored payload nests deeper than ${maxDepth} levels` : undefined;
}

/**
 * One notification as JSON text. The payload is the stored body spliced in verbatim (it is JSON,
 * checked here): nothing re-serializes it, so its size and shape cannot make the answer fail.
 */
export function notificationJson(n: NotificationRecord, maxDepth: number): string {
  const problem = unshowable(n.body, maxDepth);
  const head = JSON.stringify({
    id: n.id,
    receivedAt: iso(n.receivedAt),
    receiver: n.receiver,
    status: n.status,
    groupKey: n.groupKey,
    alertCount: n.alertCount,
    truncatedAlerts: n.truncatedAlerts,
    duplicates: n.duplicates,
    ...(problem ? { payloadError: problem } : {}),
  });
  // The notification exactly as Alertmanager sent it.
  return `${head.slice(0, -1)},"payload":${problem ? 'null' : n.body}}`;
}

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
