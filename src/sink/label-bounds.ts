import type { ReceiverTotals, StoreSummary } from './store/alert-store.js';

/**
 * Receiver and severity come from senders' bodies and become /metrics labels: bounded here, before
 * rendering, so no sender can add series without limit or make one series megabytes long.
 */
export interface LabelBounds {
  /** Distinct values shown; the least active ones beyond are summed into `other`. */
  maxValues: number;
  /** Longer values are summed into `other` (cutting them could merge two into one). */
  maxLength: number;
}

/** The bucket of every value beyond the bounds. */
export const OTHER = 'other';

export interface BoundedSummary extends StoreSummary {
  /** Distinct values summed into `other`, per label: the vigil_alertsink_label_values_folded gauge. */
  folded: { receiver: number; severity: number };
}

/** The values kept: at most `maxValues`, the most active first (ties by name: stable across renders). */
function kept(activity: ReadonlyMap<string, number>, b: LabelBounds): Set<string> {
  const fits = [...activity].filter(([v]) => v.length <= b.maxLength && v !== OTHER);
  fits.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return new Set(fits.slice(0, b.maxValues).map(([v]) => v));
}

function foldReceivers(receivers: readonly ReceiverTotals[], b: LabelBounds): { receivers: ReceiverTotals[]; folded: number } {
  const keep = kept(new Map(receivers.map((r) => [r.receiver, r.firing + r.resolved + r.duplicates])), b);
  const out = receivers.filter((r) => keep.has(r.receiver));
  const rest = receivers.filter((r) => !keep.has(r.receiver));
  if (rest.length === 0) return { receivers: out, folded: 0 };
  const other: ReceiverTotals = { receiver: OTHER, firing: 0, resolved: 0, duplicates: 0, truncatedAlerts: 0 };
  for (const r of rest) {
    other.firing += r.firing;
    other.resolved += r.resolved;
    other.duplicates += r.duplicates;
    other.truncatedAlerts += r.truncatedAlerts;
    if (r.lastNotificationAt !== undefined) other.lastNotificationAt = Math.max(other.lastNotificationAt ?? 0, r.lastNotificationAt);
  }
  return { receivers: [...out, other], folded: rest.filter((r) => r.receiver !== OTHER).length };
}

function foldSeverities(alerts: StoreSummary['alerts'], b: LabelBounds): { alerts: StoreSummary['alerts']; folded: number } {
  const activity = new Map<string, number>();
  for (const a of alerts) activity.set(a.severity, (activity.get(a.severity) ?? 0) + a.count);
  const keep = kept(activity, b);
  const sums = new Map<string, number>();
  for (const a of alerts) {
    const key = `${a.state}\u0000${keep.has(a.severity) ? a.severity : OTHER}`;
    sums.set(key, (sums.get(key) ?? 0) + a.count);
  }
  const folded = [...activity.keys()].filter((s) => !keep.has(s) && s !== OTHER).length;
  return {
    alerts: [...sums].map(([key, count]) => {
      const [state, severity] = key.split('\u0000') as [StoreSummary['alerts'][number]['state'], string];
      return { state, severity, count };
    }),
    folded,
  };
}

/** The store's summary with both labels bounded; linear in its size (plus one sort of the values). */
export function boundSummary(s: StoreSummary, b: LabelBounds): BoundedSummary {
  const r = foldReceivers(s.receivers, b);
  const a = foldSeverities(s.alerts, b);
  return { receivers: r.receivers, alerts: a.alerts, folded: { receiver: r.folded, severity: a.folded } };
}
