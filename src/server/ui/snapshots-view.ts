import type { SnapshotView } from '../estate-model.js';
import { SNAPSHOT_FAILING_ERRORS, SNAPSHOT_STALE_SECONDS } from '../snapshot-thresholds.js';
import { ago, badge, esc } from './html.js';

/** One configuration on the card: its name and when it last succeeded, amber or red at the alerts' thresholds. */
function snapshotItem(s: SnapshotView): string {
  const failed = s.consecutiveErrors ?? 0;
  const when = s.lastSuccessAgeSeconds === null ? 'no success seen' : `last success ${ago(s.lastSuccessAgeSeconds)} ago`;
  const stale = s.lastSuccessAgeSeconds !== null && s.lastSuccessAgeSeconds > SNAPSHOT_STALE_SECONDS;
  const tone = failed >= SNAPSHOT_FAILING_ERRORS ? 'bad' : stale || failed > 0 ? 'warn' : s.up ? 'ok' : 'muted';
  const failures = failed > 0 ? `, ${failed} failed in a row` : '';
  return `<code>${esc(s.name)}</code> ${badge(s.up ? `${when}${failures}` : 'unreadable', tone)}`;
}

/** The card's line of the cluster's automated raft snapshots; nothing without them. */
export function snapshotsLine(snapshots: readonly SnapshotView[]): string {
  if (snapshots.length === 0) return '';
  return `<p class="snapshots">Snapshots: ${snapshots.map(snapshotItem).join(' · ')}</p>`;
}
