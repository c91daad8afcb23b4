import { alertsQuery, encodeAlertCursor, encodeCursor, notificationsQuery, parseQuery } from './query.js';
import type { AlertStore } from './store/alert-store.js';
import { alertView, healthView, notificationJson, transitionView, type HealthView } from './views.js';

/** Transitions one timeline answer shows (newest kept). */
export const MAX_TRANSITIONS = 1000;

export type ReadAnswer<T> = { ok: true; value: T } | { ok: false; status: number; body: { error: string; parameter?: string } };

export type AlertView = ReturnType<typeof alertView>;
export type TransitionView = ReturnType<typeof transitionView>;
export interface AlertsPage {
  alerts: AlertView[];
  nextCursor: string | null;
}
export interface Timeline {
  alert: AlertView;
  transitions: TransitionView[];
  transitionsOmitted: number;
}

/**
 * The sink's read API as values: the `/api/v1/*` routes send them as JSON, the status pages render
 * them. One implementation, so a page never shows what the API would not answer.
 */
export interface SinkRead {
  alerts(query: Record<string, unknown>): Promise<ReadAnswer<AlertsPage>>;
  timeline(fingerprint: string): Promise<ReadAnswer<Timeline>>;
  /** The answer as JSON text: stored payloads are spliced in verbatim (see notificationJson). */
  notifications(query: Record<string, unknown>): Promise<ReadAnswer<string>>;
  health(): ReturnType<typeof healthView> & { healthy: boolean };
}

export function sinkRead(store: AlertStore, limits: { maxDepth: number; maxAnswerBytes: number }, health: () => HealthView): SinkRead {
  return {
    async alerts(query) {
      const q = parseQuery(alertsQuery, query);
      if (!q.ok) return { ok: false, status: 400, body: { error: q.error, parameter: q.parameter } };
      const page = await store.alerts({ ...q.value, maxBytes: limits.maxAnswerBytes });
      return { ok: true, value: { alerts: page.alerts.map(alertView), nextCursor: page.next ? encodeAlertCursor(page.next) : null } };
    },
    async timeline(fingerprint) {
      const t = await store.timeline(fingerprint);
      if (!t) return { ok: false, status: 404, body: { error: `no alert with fingerprint ${JSON.stringify(fingerprint)}` } };
      // A flapping alert can hold many transitions: the newest ones are shown, the rest counted.
      const shown = t.transitions.slice(-MAX_TRANSITIONS);
      return {
        ok: true,
        value: { alert: alertView(t.alert), transitions: shown.map(transitionView), transitionsOmitted: t.transitions.length - shown.length },
      };
    },
    async notifications(query) {
      const q = parseQuery(notificationsQuery, query);
      if (!q.ok) return { ok: false, status: 400, body: { error: q.error, parameter: q.parameter } };
      const page = await store.notifications({ ...q.value, maxBytes: limits.maxAnswerBytes });
      const items = page.notifications.map((n) => notificationJson(n, limits.maxDepth));
      return { ok: true, value: `{"notifications":[${items.join(',')}],"nextCursor":${JSON.stringify(page.next ? encodeCursor(page.next) : null)}}` };
    },
    health() {
      const h = health();
      return { ...healthView(h), healthy: h.healthy };
    },
  };
}
