import { family, single, type Family } from '../metrics/family.js';
import type { StoreAvailability } from './store/guarded-store.js';
import { UNAVAILABLE_REASONS } from './store/alert-store.js';
import type { BoundedSummary } from './label-bounds.js';
import type { FoldField } from './value-folds.js';

/** Why a webhook request was refused: the `reason` label of vigil_alertsink_rejected_total. */
export const REJECT_REASONS = ['auth', 'json', 'schema', 'too_large', 'content_type', 'store', 'overload', 'sender_gone'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** What the vigil_alertsink_* families render; rebuilt when a notification, rejection or watchdog change happens. */
export interface SinkStats {
  /** From the store (these counters survive restarts), receiver and severity bounded. */
  summary: BoundedSummary;
  /** In memory (rejected requests are never written): reset when vigil restarts. */
  rejected: ReadonlyMap<RejectReason, number>;
  /** In memory too: values of stored notifications folded to their limit, by field. */
  folded: ReadonlyMap<FoldField, number>;
  watchdog: { lastSeenSeconds?: number | undefined; healthy: boolean };
  store: StoreAvailability;
}

const STATES = ['firing', 'resolved'] as const;

export const sinkFamilies: readonly Family<SinkStats>[] = [
  family<SinkStats>({
    name: 'vigil_alertsink_notifications_total',
    help: 'Alertmanager notifications stored by the webhook alert sink, by receiver and notification status (duplicates not included).',
    type: 'counter',
    section: 'alertsink',
    labels: ['receiver', 'status'],
    samples: (s) =>
      s.summary.receivers.flatMap((r) => [
        { labels: { receiver: r.receiver, status: 'firing' }, value: r.firing },
        { labels: { receiver: r.receiver, status: 'resolved' }, value: r.resolved },
      ]),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_duplicates_total',
    help: 'Notifications received again after being stored (each Alertmanager of an HA pair sends its own copy), by receiver.',
    type: 'counter',
    section: 'alertsink',
    labels: ['receiver'],
    samples: (s) => s.summary.receivers.map((r) => ({ labels: { receiver: r.receiver }, value: r.duplicates })),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_rejected_total',
    help: 'Webhook requests refused, by reason: auth (401), json and schema (400), too_large (413), content_type (415), store (5xx: Alertmanager retries), overload (503: more notifications held than max_in_flight or max_in_flight_size), sender_gone (dropped unstored: the sender closed its connection first). Resets when vigil restarts.',
    type: 'counter',
    section: 'alertsink',
    labels: ['reason'],
    samples: (s) => [...s.rejected].map(([reason, value]) => ({ labels: { reason }, value })),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_values_folded_total',
    help: 'Values of stored notifications longer than their limit (docs/alert-sink.md#stored-values), stored cut short with a marker, by field. Resets when vigil restarts.',
    type: 'counter',
    section: 'alertsink',
    labels: ['field'],
    samples: (s) => [...s.folded].map(([field, value]) => ({ labels: { field }, value })),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_truncated_alerts_total',
    help: "Alerts Alertmanager left out of stored notifications because of the receiver's max_alerts (sum of truncatedAlerts), by receiver.",
    type: 'counter',
    section: 'alertsink',
    labels: ['receiver'],
    samples: (s) => s.summary.receivers.map((r) => ({ labels: { receiver: r.receiver }, value: r.truncatedAlerts })),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_alerts',
    help: 'Alerts in the sink\'s store (within retention) by current state and severity label ("" when the alert has none).',
    type: 'gauge',
    section: 'alertsink',
    labels: ['state', 'severity'],
    samples: (s) => {
      // Every state for every severity seen, so a state that empties shows 0 instead of vanishing.
      const bySeverity = new Map<string, Record<(typeof STATES)[number], number>>();
      for (const a of s.summary.alerts) {
        const counts = bySeverity.get(a.severity) ?? { firing: 0, resolved: 0 };
        counts[a.state] += a.count;
        bySeverity.set(a.severity, counts);
      }
      return [...bySeverity].flatMap(([severity, counts]) => STATES.map((state) => ({ labels: { state, severity }, value: counts[state] })));
    },
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_label_values_folded',
    help: 'Distinct receiver or severity values shown as "other" on the vigil_alertsink_* families: beyond limits.max_label_values (the least active) or longer than limits.max_label_length.',
    type: 'gauge',
    section: 'alertsink',
    labels: ['label'],
    samples: (s) => [
      { labels: { label: 'receiver' }, value: s.summary.folded.receiver },
      { labels: { label: 'severity' }, value: s.summary.folded.severity },
    ],
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_last_notification_timestamp_seconds',
    help: 'When the last notification (stored or duplicate) for this receiver arrived, as Unix time.',
    type: 'gauge',
    section: 'alertsink',
    labels: ['receiver'],
    samples: (s) =>
      s.summary.receivers.flatMap((r) =>
        r.lastNotificationAt === undefined ? [] : [{ labels: { receiver: r.receiver }, value: r.lastNotificationAt / 1000 }],
      ),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_watchdog_last_seen_timestamp_seconds',
    help: 'When a notification last carried the Watchdog alert firing, as Unix time; absent until one ever has.',
    type: 'gauge',
    section: 'alertsink',
    labels: [],
    samples: single((s) => s.watchdog.lastSeenSeconds),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_watchdog_healthy',
    help: '1 while the Watchdog alert keeps arriving (none missing for longer than watchdog.max_silence), 0 when the alert path is broken.',
    type: 'gauge',
    section: 'alertsink',
    labels: [],
    samples: single((s) => s.watchdog.healthy),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_store_up',
    help: 'Whether the alert store can be used (1) or not (0: the webhook answers 503, see vigil_alertsink_store_unavailable for why).',
    type: 'gauge',
    section: 'alertsink',
    labels: [],
    samples: single((s) => s.store.available),
  }),
  family<SinkStats>({
    name: 'vigil_alertsink_store_unavailable',
    help: 'Why the alert store cannot be used: 1 for the current reason (unreachable, corrupt, read_only, no_space, cannot_open), all 0 while it can.',
    type: 'gauge',
    section: 'alertsink',
    labels: ['reason'],
    samples: (s) => UNAVAILABLE_REASONS.map((reason) => ({ labels: { reason }, value: !s.store.available && s.store.reason === reason ? 1 : 0 })),
  }),
];
